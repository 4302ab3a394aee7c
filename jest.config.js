/**
 * Three tiers, one jest project each; `npm run test:<tier>` sets NESTCLAW_TEST_TIER to run only that
 * one (extra args pass through: `npm run test:e2e -- test/e2e/tools -t approval`), plain jest runs all:
 * - unit: `*.spec.ts` beside the code. No build, no database, no network but loopback fakes.
 * - int:  `*.int-spec.ts` beside the code. Repositories and services against a real database cloned
 *         from a migrated template (test/support/int-global-setup.ts), embedded when no server answers.
 * - e2e:  `test/e2e/**\/*.e2e-spec.ts`. The app through startGateway (and the built bundle).
 * @type {import('jest').Config}
 */
const { readdirSync } = require('node:fs');
const { join } = require('node:path');

// Every folder under libs/ is a lib reachable as @nestclaw/<name> (mirrors tsconfig paths).
const libs = readdirSync(join(__dirname, 'libs'), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name);

/** Packages published as ES modules only that the gateway loads (see `transform` below). */
const ESM_ONLY = ['content-disposition'];

const shared = {
  rootDir: __dirname,
  testEnvironment: 'node',
  moduleFileExtensions: ['ts', 'js', 'json'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { diagnostics: false }],
    // ESM-only packages the app requires (Node >= 20.19 loads them with require(); Jest's module
    // runtime cannot): compiled to CommonJS for the tests. content-disposition comes with @fastify/static.
    [`/node_modules/(${ESM_ONLY.join('|')})/.+\\.js$`]: ['ts-jest', { diagnostics: false, tsconfig: { allowJs: true } }],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${ESM_ONLY.join('|')})/)`],
  moduleNameMapper: Object.fromEntries(libs.map((l) => [`^@nestclaw/${l}$`, `<rootDir>/libs/${l}/src`])),
};

const projects = [
  {
    ...shared,
    displayName: 'unit',
    testMatch: ['<rootDir>/libs/**/*.spec.ts', '<rootDir>/apps/**/*.spec.ts', '<rootDir>/scripts/**/*.spec.ts'],
  },
  {
    ...shared,
    displayName: 'int',
    testMatch: ['<rootDir>/libs/**/*.int-spec.ts', '<rootDir>/apps/**/*.int-spec.ts'],
    globalSetup: '<rootDir>/test/support/int-global-setup.ts',
    globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  },
  {
    ...shared,
    displayName: 'e2e',
    testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
    globalSetup: '<rootDir>/test/support/global-setup.ts',
    globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  },
];

const tier = process.env.NESTCLAW_TEST_TIER;
if (tier && !projects.some((p) => p.displayName === tier)) throw new Error(`NESTCLAW_TEST_TIER=${tier}: expected unit, int or e2e`);

module.exports = {
  maxWorkers: 2,
  // A global option in jest (ignored per project): unit specs get less time to hang.
  testTimeout: tier === 'unit' ? 15_000 : 60_000,
  projects: tier ? projects.filter((p) => p.displayName === tier) : projects,
};
