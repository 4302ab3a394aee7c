'use strict';
// Part of `npm run lint`: proves the module-graph rule (eslint.config.mjs, docs/adr/0007) still bites.
// Lints small imports as if they were files in libs/ and fails unless every forbidden edge is reported
// and every allowed one is not. A rule that silently stopped matching (a renamed folder, a plugin
// upgrade) would otherwise let upward imports in unnoticed.
const { ESLint } = require('eslint');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const CASES = [
  { file: 'libs/db/src/boundary-check.ts', code: "export { AgentService } from '@nestclaw/agent';", allowed: false, why: 'upward (db → agent)' },
  { file: 'libs/channel/src/boundary-check.ts', code: "export { ApprovalService } from '@nestclaw/tool';", allowed: false, why: 'skips a layer (channel → tool)' },
  { file: 'libs/provider/src/boundary-check.ts', code: "export { ToolRegistry } from '@nestclaw/tool';", allowed: false, why: 'sideways (provider → tool)' },
  { file: 'libs/common/src/boundary-check.ts', code: "export { ConfigService } from '@nestclaw/config';", allowed: false, why: 'upward (common → config)' },
  { file: 'libs/tool/src/boundary-check.ts', code: "export { FakeSearchServer } from '../../../test/fixtures/fake-search.server';", allowed: false, why: 'a lib importing test/' },
  { file: 'libs/agent/src/boundary-check.ts', code: "export { ReliableProvider } from '@nestclaw/provider';", allowed: true, why: 'downward (agent → provider)' },
  { file: 'apps/gateway/src/boundary-check.ts', code: "export { ChannelRegistry } from '@nestclaw/channel';", allowed: true, why: 'app → lib' },
];

async function main() {
  // Only the boundary rule: these virtual files are not part of the TypeScript project, so typed rules cannot run on them.
  const eslint = new ESLint({
    cwd: ROOT,
    overrideConfig: {
      files: ['**/*.ts'],
      languageOptions: { parserOptions: { projectService: false, project: null } },
      rules: {
        '@typescript-eslint/no-floating-promises': 'off',
        '@typescript-eslint/switch-exhaustiveness-check': 'off',
      },
    },
  });
  let failed = 0;
  for (const c of CASES) {
    const [result] = await eslint.lintText(c.code, { filePath: path.join(ROOT, c.file) });
    const reported = result.messages.filter((m) => m.ruleId === 'boundaries/dependencies');
    const ok = c.allowed ? reported.length === 0 : reported.length > 0;
    if (!ok) failed++;
    const detail = reported[0]?.message ?? result.messages.map((m) => m.message).join('; ');
    process.stdout.write(`${ok ? 'ok  ' : 'FAIL'} ${c.allowed ? 'allowed' : 'refused'}: ${c.why}${detail ? ` (${detail})` : ''}\n`);
  }
  if (failed) {
    process.stderr.write(`check-boundaries: ${failed} case(s) not enforced as expected; see eslint.config.mjs\n`);
    process.exit(1);
  }
}

main().catch((e) => {
  process.stderr.write(`check-boundaries: ${e.stack || e}\n`);
  process.exit(1);
});
