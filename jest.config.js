/** @type {import('jest').Config} */
const libs = ['common', 'config', 'db', 'provider', 'tool', 'agent', 'security', 'doctor', 'channel', 'memory'];

module.exports = {
  rootDir: '.',
  testEnvironment: 'node',
  moduleFileExtensions: ['ts', 'js', 'json'],
  testMatch: ['<rootDir>/libs/**/*.spec.ts', '<rootDir>/apps/**/*.spec.ts', '<rootDir>/test/**/*.e2e-spec.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
  moduleNameMapper: Object.fromEntries(libs.map((l) => [`^@nestclaw/${l}$`, `<rootDir>/libs/${l}/src`])),
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  testTimeout: 60_000,
  maxWorkers: 2,
  // Each e2e file starts its own gateway and database; failures must not hang the run.
  forceExit: true,
};
