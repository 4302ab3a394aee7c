export * from './tool.port';
export * from './tool.registry';
export * from './tool.module';
