// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'libs/db/src/generated/**', 'bench-results/**', 'coverage/**', 'prisma.config.ts', '**/*.js', '**/*.mjs'] },
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
          patterns: [
            {
              regex: '^(\\.\\./)+(libs/)?[a-z-]+/src(/|$)',
              message: 'Import another lib through its public entry (@nestclaw/<lib>), never by relative path.',
            },
            { regex: '^@nestclaw/[a-z-]+/.+', message: 'Import only the public entry of a lib (@nestclaw/<lib>), not its internals.' },
          ],
        },
      ],
    },
  },
);
