export * from './api-token.service';
export * from './security.module';
export * from './scopes';
