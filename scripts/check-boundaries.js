'use strict';
// Part of `npm run lint`: proves the module-graph rule (eslint.config.mjs, docs/adr/0007) still bites.
// Lints small imports as if they were files in libs/ and fails unless every forbidden edge is reported
// and every allowed one is not. A rule that silently stopped matching (a renamed folder, a plugin
// upgrade) would otherwise let upward imports in unnoticed.
//
// Second rule (docs/adr, data path): SQL lives in `*.repository.ts` and libs/db's query helper only.
// Every non-spec .ts file under libs/ and apps/ is scanned; the scanner itself is proven on bad and
// good sample files first, so a regex that stopped matching cannot pass silently either.
const { ESLint } = require('eslint');
const fs = require('node:fs');
const path = require('node:path');
const { checkInjections } = require('./check-injections');

const ROOT = path.resolve(__dirname, '..');
const CASES = [
  {
    file: 'libs/db/src/boundary-check.ts',
    code: "export { AgentService } from '@nestclaw/agent';",
    allowed: false,
    why: 'upward (db → agent)',
  },
  {
    file: 'libs/channel/src/boundary-check.ts',
    code: "export { ApprovalService } from '@nestclaw/tool';",
    allowed: false,
    why: 'skips a layer (channel → tool)',
  },
  {
    file: 'libs/provider/src/boundary-check.ts',
    code: "export { ToolRegistry } from '@nestclaw/tool';",
    allowed: false,
    why: 'sideways (provider → tool)',
  },
  {
    file: 'libs/common/src/boundary-check.ts',
    code: "export { ConfigService } from '@nestclaw/config';",
    allowed: false,
    why: 'upward (common → config)',
  },
  {
    file: 'libs/tool/src/boundary-check.ts',
    code: "export { FakeSearchServer } from '../../../test/fixtures/fake-search.server';",
    allowed: false,
    why: 'a lib importing test/',
  },
  {
    file: 'libs/cli-bridge/src/boundary-check.ts',
    code: "export { InboundPipeline } from '@nestclaw/channel';",
    allowed: false,
    why: 'upward (cli-bridge → channel: channel routes to the bridge, never back)',
  },
  {
    file: 'libs/channel/src/boundary-check.ts',
    code: "export { CliBridge } from '@nestclaw/cli-bridge';",
    allowed: true,
    why: 'downward (channel → cli-bridge)',
  },
  {
    file: 'libs/mcp/src/boundary-check.ts',
    code: "export { AgentService } from '@nestclaw/agent';",
    allowed: false,
    why: 'upward (mcp → agent: MCP tools reach agents only through the tool registry)',
  },
  {
    file: 'libs/mcp/src/boundary-check.ts',
    code: "export { ToolRegistry } from '@nestclaw/tool';",
    allowed: true,
    why: 'downward (mcp → tool)',
  },
  {
    file: 'libs/channel/src/boundary-check.ts',
    code: "export { PluginService } from '@nestclaw/plugin';",
    allowed: false,
    why: 'upward (channel → plugin: plugins register channels, never the reverse)',
  },
  {
    file: 'libs/plugin/src/boundary-check.ts',
    code: "export { ChannelRegistry } from '@nestclaw/channel';",
    allowed: true,
    why: 'downward (plugin → channel)',
  },
  {
    file: 'libs/agent/src/boundary-check.ts',
    code: "export { ReliableProvider } from '@nestclaw/provider';",
    allowed: true,
    why: 'downward (agent → provider)',
  },
  {
    file: 'apps/gateway/src/boundary-check.ts',
    code: "export { ChannelRegistry } from '@nestclaw/channel';",
    allowed: true,
    why: 'app → lib',
  },
  {
    file: 'apps/gateway/src/boundary-check.ts',
    code: "import { SessionRepository } from '@nestclaw/agent';\nexport const r = SessionRepository;",
    allowed: false,
    rule: 'no-restricted-imports',
    why: "an app importing a lib's repository (ADR 0008: apps call services)",
  },
  {
    file: 'apps/cli/src/boundary-check.ts',
    code: "import { CronService } from '@nestclaw/agent';\nexport const s = CronService;",
    allowed: true,
    rule: 'no-restricted-imports',
    why: "an app importing a lib's service",
  },
];

/** Where SQL may be written: repositories, libs/db's query helper and reachability probe and wake-up listener, the migration runner. */
const SQL_ALLOWED = [
  { test: (f) => f.endsWith('.repository.ts'), why: 'repositories own the data path' },
  { test: (f) => f === 'libs/db/src/database.service.ts', why: 'the query helper (errors mapped once)' },
  { test: (f) => f === 'libs/db/src/reachability.ts', why: 'the reachability probe' },
  { test: (f) => f === 'libs/db/src/database-notifications.ts', why: 'the wake-up listener (LISTEN on its own connection)' },
  { test: (f) => f === 'libs/db/src/migrations/migration.runner.ts', why: 'the migration runner' },
  { test: (f) => f.startsWith('libs/testing/'), why: 'test support (creates and drops scratch databases), never part of the app' },
];
/** A string or template literal that starts with a statement, or a `.query(` call with arguments. */
const SQL_PATTERNS = [
  /(['"`])\s*(SELECT\s|INSERT\s+INTO\s|UPDATE\s+[a-z_"]+(\s+[a-z]+)?\s+SET\s|DELETE\s+FROM\s|WITH\s+(RECURSIVE\s+)?[a-z_]+\s+AS\s*\()/g,
  /\.query\s*(<[\s\S]*?>\s*)?\((?!\s*\))/g,
];
const SQL_CASES = [
  {
    file: 'libs/channel/src/conversation-log/conversation-log.service.ts',
    code: 'await this.db.query(`SELECT id FROM conversation_log WHERE session_id = $1`, [id]);',
    allowed: false,
    why: 'SQL in a service',
  },
  {
    file: 'apps/gateway/src/sessions/sessions.controller.ts',
    code: "const sql = 'DELETE FROM sessions WHERE id = $1';",
    allowed: false,
    why: 'SQL in a controller',
  },
  {
    file: 'libs/agent/src/turn/turn.loop.ts',
    code: 'await this.db.pool.query(text, values);',
    allowed: false,
    why: 'a pool query outside a repository',
  },
  {
    file: 'libs/channel/src/conversation-log/conversation-log.repository.ts',
    code: 'await this.db.query(`SELECT id FROM conversation_log WHERE session_id = $1`, [id]);',
    allowed: true,
    why: 'SQL in a repository',
  },
  {
    file: 'libs/memory/src/index/lance.index.ts',
    code: "await table.query().select(['id']).toArray();",
    allowed: true,
    why: 'a query builder call without SQL',
  },
  {
    file: 'libs/channel/src/access/access-policy.ts',
    code: "const reply = 'Select an agent with /agent';",
    allowed: true,
    why: 'ordinary text',
  },
];

/** Line numbers of SQL in `text`, or none when `file` (relative to the root) may hold SQL. */
function sqlSites(file, text) {
  if (SQL_ALLOWED.some((a) => a.test(file))) return [];
  const lines = new Set();
  for (const re of SQL_PATTERNS) {
    re.lastIndex = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) lines.add(text.slice(0, m.index).split('\n').length);
  }
  return [...lines].sort((a, b) => a - b);
}

function sourceFiles(dir, out = []) {
  for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) {
      if (!['node_modules', 'generated', 'dist'].includes(e.name)) sourceFiles(rel, out);
    } else if (rel.endsWith('.ts') && !/\.(spec|int-spec|e2e-spec)\.ts$/.test(rel)) out.push(rel);
  }
  return out;
}

/** The SQL rule: proven on the sample cases, then applied to every source file. Returns the failures. */
function checkSql() {
  let failed = 0;
  for (const c of SQL_CASES) {
    const reported = sqlSites(c.file, c.code).length > 0;
    const ok = c.allowed ? !reported : reported;
    if (!ok) failed++;
    process.stdout.write(`${ok ? 'ok  ' : 'FAIL'} ${c.allowed ? 'allowed' : 'refused'}: ${c.why} (${c.file})\n`);
  }
  let sites = 0;
  for (const file of [...sourceFiles('libs'), ...sourceFiles('apps')]) {
    const lines = sqlSites(file, fs.readFileSync(path.join(ROOT, file), 'utf8'));
    for (const line of lines)
      process.stderr.write(`${file}:${line}: SQL outside a repository: move it into a *.repository.ts (docs/adr/0008)\n`);
    sites += lines.length;
  }
  process.stdout.write(`raw SQL sites outside repositories: ${sites}\n`);
  return failed + sites;
}

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
    const reported = result.messages.filter((m) => m.ruleId === (c.rule ?? 'boundaries/dependencies'));
    const ok = c.allowed ? reported.length === 0 : reported.length > 0;
    if (!ok) failed++;
    const detail = reported[0]?.message ?? result.messages.map((m) => m.message).join('; ');
    process.stdout.write(`${ok ? 'ok  ' : 'FAIL'} ${c.allowed ? 'allowed' : 'refused'}: ${c.why}${detail ? ` (${detail})` : ''}\n`);
  }
  if (failed) process.stderr.write(`check-boundaries: ${failed} case(s) not enforced as expected; see eslint.config.mjs\n`);
  const sqlFailed = checkSql();
  if (sqlFailed) process.stderr.write(`check-boundaries: SQL outside repositories (or the SQL check itself failed its cases)\n`);
  const injectionsFailed = checkInjections();
  if (failed || sqlFailed || injectionsFailed) process.exit(1);
}

main().catch((e) => {
  process.stderr.write(`check-boundaries: ${e.stack || e}\n`);
  process.exit(1);
});
