export * from './doctor.service';
export * from './doctor.module';
