export * from './nestclaw.error';
export * from './package-root';
export * from './duration';
