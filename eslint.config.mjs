// @ts-check
import js from '@eslint/js';
import boundaries from 'eslint-plugin-boundaries';
import tseslint from 'typescript-eslint';

/**
 * The dependency graph, enforced (docs/adr/0007-module-boundaries.md). Each lib may import only the
 * libs listed for it; apps may import any lib; nothing imports an app. Edges point one way:
 * apps → plugin → channel / doctor → agent / cli-bridge / mcp → provider / tool / memory / security → db / observability → config → common.
 */
const LIB_DEPENDENCIES = {
  common: [],
  config: ['common'],
  db: ['config', 'common'],
  observability: ['config', 'common'],
  provider: ['db', 'observability', 'config', 'common'],
  tool: ['db', 'observability', 'config', 'common'],
  // memory registers its memory_* tools with the tool registry (a same-layer edge, documented in libs/memory/README.md).
  memory: ['provider', 'tool', 'db', 'observability', 'config', 'common'],
  security: ['db', 'observability', 'config', 'common'],
  agent: ['provider', 'tool', 'memory', 'db', 'observability', 'config', 'common'],
  // The CLI bridge (docs/adr/0017-cli-bridge.md) sits beside agent: it runs coding CLIs instead of a model, and asks
  // tool approvals the way a tool step does. Channel routes bound chats to it; it never reaches back up.
  'cli-bridge': ['tool', 'db', 'observability', 'config', 'common'],
  // MCP servers' tools (docs/mcp.md): registered with the tool registry, so they take the built-ins' path.
  mcp: ['tool', 'observability', 'config', 'common'],
  // /remember and /forget reach memory directly: still downward, and no agent code in between.
  channel: ['agent', 'cli-bridge', 'memory', 'security', 'db', 'observability', 'config', 'common'],
  doctor: ['provider', 'tool', 'mcp', 'memory', 'security', 'db', 'observability', 'config', 'common'],
  // Plugins (docs/plugins.md) add tools, providers, channels and memory stores through the registries the built-ins use; doctor lists them.
  plugin: ['channel', 'doctor', 'provider', 'tool', 'memory', 'db', 'observability', 'config', 'common'],
  // Test doubles and database fixtures for specs: they stand in for the libs below the one under test.
  testing: ['channel', 'cli-bridge', 'agent', 'mcp', 'provider', 'tool', 'memory', 'security', 'db', 'observability', 'config', 'common'],
};

// The patterns every lib and app import must pass; production files also may not reach the test doubles.
const DEEP_IMPORTS = [
  {
    regex: '^(\\.\\./)+(libs/)?[a-z-]+/src(/|$)',
    message: 'Import another lib through its public entry (@nestclaw/<lib>), never by relative path.',
  },
  { regex: '^@nestclaw/[a-z-]+/.+', message: 'Import only the public entry of a lib (@nestclaw/<lib>), not its internals.' },
];

const NO_TEST_DOUBLES = { regex: '^@nestclaw/testing$', message: 'Test doubles are for specs only, never production code.' };

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'libs/db/src/generated/**',
      'bench-results/**',
      'coverage/**',
      'prisma.config.ts',
      '**/*.js',
      '**/*.mjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-imports': [
        'error',
        {
          patterns: DEEP_IMPORTS,
        },
      ],
    },
  },
  {
    // The control UI runs in the browser: typed against its own tsconfig (DOM lib, Preact JSX), which
    // also answers for browser globals (TypeScript checks them, so no-undef stays off as for all TS).
    // It talks to the gateway over HTTP only: no lib and no Node built-in may reach the bundle.
    files: ['apps/ui/**/*.ts', 'apps/ui/**/*.tsx'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '^@nestclaw/', message: 'The UI runs in the browser: call the gateway API instead of importing a lib.' },
            { regex: '^node:', message: 'The UI runs in the browser: no Node built-ins.' },
          ],
        },
      ],
    },
  },
  {
    files: ['apps/**/*.ts', 'libs/**/*.ts', 'test/lint/**/*.ts'],
    ignores: ['apps/ui/**'],
    plugins: { boundaries },
    settings: {
      'import/resolver': { typescript: { project: './tsconfig.json' } },
      'boundaries/include': ['apps/**/*.ts', 'libs/**/*.ts', 'test/**/*.ts'],
      'boundaries/elements': [
        { type: 'app', pattern: 'apps/*', capture: ['name'] },
        { type: 'lib', pattern: 'libs/*', capture: ['name'] },
        { type: 'test', pattern: 'test' },
      ],
    },
    rules: {
      'boundaries/dependencies': [
        'error',
        {
          default: 'disallow',
          message:
            '{{from.element.type}} "{{from.element.captured.name}}" may not import {{to.element.type}} "{{to.element.captured.name}}": see the graph in eslint.config.mjs and docs/adr/0007-module-boundaries.md',
          policies: [
            { from: { element: { type: 'app' } }, allow: { to: { element: { type: 'lib' } } } },
            ...Object.entries(LIB_DEPENDENCIES).map(([lib, deps]) => ({
              from: { element: { type: 'lib', captured: { name: lib } } },
              // Any lib's specs may use the test doubles; production files are held off them below.
              allow: { to: { element: { type: 'lib', captured: { name: `{${[lib, ...deps, 'testing'].join(',')}}` } } } },
            })),
          ],
        },
      ],
    },
  },
  {
    files: ['apps/**/*.ts', 'libs/**/*.ts'],
    ignores: ['**/*.spec.ts', '**/*.int-spec.ts', 'libs/testing/**', 'apps/ui/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [...DEEP_IMPORTS, NO_TEST_DOUBLES],
        },
      ],
    },
  },
  {
    // Apps call services, never a lib's repository (docs/adr/0008-data-path.md, 0007).
    files: ['apps/**/*.ts'],
    ignores: ['**/*.spec.ts', '**/*.int-spec.ts', 'apps/ui/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...DEEP_IMPORTS,
            NO_TEST_DOUBLES,
            {
              group: ['@nestclaw/*'],
              importNamePattern: 'Repository$',
              message: "Apps call a lib's services, not its repositories (docs/adr/0008-data-path.md).",
            },
          ],
        },
      ],
    },
  },
);
