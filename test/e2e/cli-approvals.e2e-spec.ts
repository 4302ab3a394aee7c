import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '@nestclaw/common';
import { FakeOpenAiServer } from '../fixtures/fake-openai.server';
import { CLI_BIN, runCli, waitForOutput } from '../support/cli-process';
import { eventually } from '../support/eventually';
import { GatewayProcess, spawnGateway } from '../support/gateway-process';
import { describeWithHostTools } from '../support/host-tools';
import { createTestDatabase, TestDatabase } from '../support/test-database';

/**
 * `nestclaw chat` meeting a tool call that needs approval, and `nestclaw approvals`, through the real
 * CLI process against a real gateway. The fake model asks for `file_write` (approval-gated by default
 * and, unlike `shell`, usable without a sandbox), so nothing here needs bubblewrap.
 */

interface Approval {
  id: string;
  tool: string;
  status: string;
  decidedBy: string | null;
}

/** Each case starts several CLI processes (a second or more each on a busy 2-core machine). */
const CASE_TIMEOUT_MS = 120_000;
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const writeCall = (path: string, content: string) => `save it [tool:file_write ${JSON.stringify({ path, content })}]`;

/**
 * tmux drives the terminal cases. Written inline for now (the shared host-tool check for test/support
 * is being built separately): absent, the terminal cases skip and say how to install it, except under
 * CI=true, where they run and fail.
 */
describe('nestclaw chat and nestclaw approvals with a tool call that needs approval', () => {
  const llm = new FakeOpenAiServer();
  let db: TestDatabase;
  let home: string;
  let gateway: GatewayProcess;
  let token: string;

  const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
    PATH: process.env.PATH,
    NESTCLAW_HOME: home,
    NO_COLOR: '1',
    ...(db.url ? { DATABASE_URL: db.url } : {}),
    ...extra,
  });
  const approvals = (...args: string[]) => runCli(['approvals', ...args, '--url', gateway.url], env());
  const api = async (path: string, json?: unknown) =>
    fetch(`${gateway.url}${path}`, {
      method: json ? 'POST' : 'GET',
      headers: { authorization: `Bearer ${token}`, ...(json ? { 'content-type': 'application/json' } : {}) },
      body: json ? JSON.stringify(json) : undefined,
    });
  const approval = async (id: string) =>
    ((await (await api('/v1/approvals?limit=500')).json()) as { approvals: Approval[] }).approvals.find((a) => a.id === id);
  const workspaceFile = (path: string) => join(home, 'workspaces', 'agents', 'default', path);

  beforeAll(async () => {
    if (!existsSync(join(packageRoot(), 'dist', 'apps', 'cli', 'main.js')))
      throw new Error('dist/apps/cli/main.js is missing: run `npm run build` first');
    await llm.start();
    db = await createTestDatabase();
    home = mkdtempSync(join(tmpdir(), 'nestclaw-cli-approvals-'));
    gateway = await spawnGateway(env({ OPENAI_BASE_URL: llm.url, OPENAI_API_KEY: 'sk-test', NESTCLAW_MODEL: 'fake-model' }));
    token = readFileSync(join(home, 'token'), 'utf8').trim();
  }, 60_000);

  afterAll(async () => {
    await gateway?.stop();
    await llm.stop();
    await db?.drop();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  describe('piped input', () => {
    it(
      'prints the whole pending call with its id, expiry and the commands to decide it, and goes on once another terminal approves it by prefix',
      async () => {
        const content = Array.from({ length: 25 }, (_, i) => `第${i + 1}行 line ${i + 1}`).join('\n');
        const chat = spawn(process.execPath, [CLI_BIN, 'chat', '--url', gateway.url], { env: env(), stdio: ['pipe', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        chat.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
        chat.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        const exited = new Promise<number | null>((resolve) => chat.on('exit', resolve));
        chat.stdin.end(`${writeCall('notes/计划.md', content)}\n`);

        const [, id] = await waitForOutput(
          () => stderr,
          new RegExp(`approval needed: (${UUID}) \\(expires \\d\\d:\\d\\d:\\d\\d UTC \\(in 10 min\\)\\)`),
          'the approval',
        );
        await waitForOutput(() => stderr, /nestclaw approvals deny/, 'the commands to decide it');
        expect(stderr).toContain('  tool: file_write\n  path: notes/计划.md\n  content (25 lines, ');
        expect(stderr).toContain('    | 第1行 line 1\n');
        expect(stderr).toContain('    | 第20行 line 20\n    … 5 more lines not shown\n');
        expect(stderr).not.toContain('第21行'); // the one-line [tool …] note is cut short too
        expect(stderr).toContain(`nestclaw approvals approve ${id}\n`);
        expect(stderr).toContain(`nestclaw approvals approve ${id} --remember\n`);

        const listed = await approvals('list');
        expect(listed.code).toBe(0);
        expect(listed.stdout).toMatch(new RegExp(`^${id}  file_write  expires .* UTC \\(in 10 min\\)`, 'm'));
        expect(listed.stdout).toContain('  path: notes/计划.md');

        const approved = await approvals('approve', id.slice(0, 8));
        expect(approved.stderr).toBe('');
        expect(approved.code).toBe(0);
        expect(approved.stdout).toMatch(new RegExp(`^approved ${id} \\(file_write, session ${UUID}\\)`));

        expect(await exited).toBe(0);
        expect(stdout).toMatch(/^tool said: /);
        expect(readFileSync(workspaceFile('notes/计划.md'), 'utf8')).toBe(content);
        expect(await approval(id)).toMatchObject({ status: 'approved', decidedBy: 'owner' });

        // Deciding it again: 409 from the gateway, said plainly with what to do next.
        const again = await approvals('deny', id);
        expect(again.code).toBe(1);
        expect(again.stderr).toContain(`is already approved: nothing left to decide; \`nestclaw approvals list --status approved\``);
      },
      CASE_TIMEOUT_MS,
    );

    it(
      'a denial from another terminal reaches the model and the piped chat ends normally',
      async () => {
        const chat = runCli(['chat', '--url', gateway.url], env(), `${writeCall('denied.txt', 'never written')}\n`, 60_000);
        const id = await eventually(
          'the pending approval',
          async () => {
            const { approvals: pending } = (await (await api('/v1/approvals?status=pending')).json()) as {
              approvals: (Approval & { input: { path?: string } })[];
            };
            return pending.find((a) => a.input.path === 'denied.txt')?.id;
          },
          40_000,
        );
        const denied = await approvals('deny', id);
        expect(denied.code).toBe(0);
        expect(denied.stdout).toMatch(new RegExp(`^denied ${id} \\(file_write`));
        const r = await chat;
        expect(r.code).toBe(0);
        expect(r.stderr).toContain('[file_write failed: denied: owner refused this file_write call]');
        expect(r.stdout).toContain('tool said: denied: owner refused this file_write call');
        expect(existsSync(workspaceFile('denied.txt'))).toBe(false);
        const listed = await approvals('list', '--status', 'denied', '--limit', '5');
        expect(listed.stdout).toMatch(new RegExp(`^${id}  file_write  denied by owner at `, 'm'));
      },
      CASE_TIMEOUT_MS,
    );

    it(
      'answers an unknown id with 404 and what to do next, and a bad --status or --limit before asking anyone',
      async () => {
        const unknown = await approvals('approve', '00000000-0000-4000-8000-000000000000');
        expect(unknown.code).toBe(1);
        expect(unknown.stderr).toContain('does not exist; `nestclaw approvals list --status pending` shows the ones waiting');
        const noPrefix = await approvals('deny', 'zzzz');
        expect(noPrefix.code).toBe(1);
        expect(noPrefix.stderr).toContain('no approval id starts with "zzzz"');
        const badStatus = await approvals('list', '--status', 'later');
        expect(badStatus.code).toBe(1);
        expect(badStatus.stderr).toContain('Allowed choices are pending, approved, denied, expired');
        const badLimit = await approvals('list', '--limit', '0');
        expect(badLimit.code).toBe(1);
        expect(badLimit.stderr).toContain('expected a whole number from 1 to 500');
      },
      CASE_TIMEOUT_MS,
    );
  });

  describeWithHostTools(['tmux'], 'on a terminal (tmux)', () => {
    const socket = `nestclaw-cli-approvals-${process.pid}`;
    const tmux = (...args: string[]) => {
      const r = spawnSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`tmux ${args.join(' ')} failed: ${r.stderr}`);
      return r.stdout;
    };
    let n = 0;
    /** A fresh `nestclaw chat` in its own tmux window; returns the pane id and a screen reader. */
    const startChat = async () => {
      const name = `chat${++n}`;
      const vars = Object.entries(env()).map(([k, v]) => `${k}=${quote(v ?? '')}`);
      tmux(
        'new-session',
        '-d',
        '-s',
        name,
        '-x',
        '200',
        '-y',
        '50',
        `env -i ${vars.join(' ')} ${quote(process.execPath)} ${quote(CLI_BIN)} chat --url ${gateway.url}; sleep 30`,
      );
      const screen = () => tmux('capture-pane', '-p', '-J', '-S', '-500', '-t', name);
      await waitForOutput(screen, /you>\s*$/m, 'the chat prompt');
      const type = (text: string) => {
        tmux('send-keys', '-t', name, '-l', text);
        tmux('send-keys', '-t', name, 'Enter');
      };
      return { name, screen, type, key: (k: string) => tmux('send-keys', '-t', name, k) };
    };

    afterAll(() => {
      spawnSync('tmux', ['-L', socket, 'kill-server'], { stdio: 'ignore' });
    }, CASE_TIMEOUT_MS);

    it(
      'asks inline; "r" approves and remembers, so the same call runs without asking next time',
      async () => {
        const t = await startChat();
        t.type(writeCall('remembered.txt', 'hello 你好'));
        await waitForOutput(t.screen, /approve\? \[y\] once, \[r\] remember .*, \[n\] deny:\s*$/m, 'the approval question');
        expect(t.screen()).toMatch(
          new RegExp(
            `approval needed: ${UUID} \\(expires .* UTC \\(in 10 min\\)\\)\\n  tool: file_write\\n  path: remembered.txt\\n  content: hello 你好`,
          ),
        );
        t.type('maybe');
        await waitForOutput(t.screen, /answer y, r or n/, 'the hint after an unclear answer');
        t.type('r');
        await waitForOutput(t.screen, /\(approved and remembered\)[\s\S]*tool said: [\s\S]*you>\s*$/m, 'the reply after approval');
        expect(readFileSync(workspaceFile('remembered.txt'), 'utf8')).toBe('hello 你好');

        t.type(writeCall('remembered.txt', 'hello 你好'));
        await waitForOutput(t.screen, /tool said: [\s\S]*tool said: [\s\S]*you>\s*$/m, 'the second reply');
        expect(t.screen().match(/approval needed:/g)).toHaveLength(1);
      },
      CASE_TIMEOUT_MS,
    );

    it(
      'Ctrl-C at the approval question cancels the turn, denies the call, and the next line is answered',
      async () => {
        const t = await startChat();
        t.type(writeCall('cancelled.txt', 'no'));
        const [, id] = await waitForOutput(
          t.screen,
          new RegExp(`approval needed: (${UUID})[\\s\\S]*\\[n\\] deny:\\s*$`, 'm'),
          'the approval question',
        );
        t.key('C-c');
        await waitForOutput(
          t.screen,
          new RegExp(`\\(cancelled\\)\\n\\(approval ${id.slice(0, 8)} denied\\)\\nyou>\\s*$`, 'm'),
          'the cancellation',
        );
        expect(await approval(id)).toMatchObject({ status: 'denied', decidedBy: 'owner' });
        t.type('after the cancel');
        await waitForOutput(t.screen, /echo: after the cancel\nyou>\s*$/m, 'the next answer', 30_000);
        expect(existsSync(workspaceFile('cancelled.txt'))).toBe(false);
      },
      CASE_TIMEOUT_MS,
    );

    it(
      'an approval decided elsewhere takes the question away and the turn goes on',
      async () => {
        const t = await startChat();
        t.type(writeCall('elsewhere.txt', 'from another client'));
        const [, id] = await waitForOutput(
          t.screen,
          new RegExp(`approval needed: (${UUID})[\\s\\S]*\\[n\\] deny:\\s*$`, 'm'),
          'the approval question',
        );
        expect((await api(`/v1/approvals/${id}`, { decision: 'approve' })).status).toBe(201);
        await waitForOutput(
          t.screen,
          /decided elsewhere or expired; the turn goes on\)[\s\S]*tool said: [\s\S]*you>\s*$/m,
          'the turn going on',
        );
        // The next line is a chat message again, not an answer to a leftover question.
        t.type('still here');
        await waitForOutput(t.screen, /echo: still here\nyou>\s*$/m, 'the next answer');
        expect(readFileSync(workspaceFile('elsewhere.txt'), 'utf8')).toBe('from another client');
      },
      CASE_TIMEOUT_MS,
    );
  });
});

function quote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}
