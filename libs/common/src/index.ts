export * from './nestclaw.error';
export * from './package-root';
export * from './duration';
export * from './keyed-queue';
export * from './token-count';
export * from './failure-throttle';
export * from './confined-file.reader';
export * from './free-port';
