import { Module } from '@nestjs/common';
import { ProviderModule } from '@nestclaw/provider';
import { DoctorService } from './doctor.service';

@Module({ imports: [ProviderModule], providers: [DoctorService], exports: [DoctorService] })
export class DoctorModule {}
