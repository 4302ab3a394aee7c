export * from './config.schema';
export * from './config.loader';
export * from './config.service';
export * from './config.module';
export * from './reconfigurable';
export * from './nestclaw-home';
export * from './config.secrets';
export * from './gateway-info';
