import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { packageRoot } from '@nestclaw/common';
import { telegramHtmlToText } from '@nestclaw/channel';
import { FakeOpenAiServer } from '../../fixtures/fake-openai.server';
import { FakeTelegramServer, FakeUser } from '../../fixtures/fake-telegram.server';
import { createTestDatabase, TestDatabase } from '../../support/test-database';

const users: FakeUser[] = [
  { id: 5001, first_name: 'Ann' },
  { id: 5002, first_name: 'Ben' },
  { id: 5003, first_name: 'Cat' },
];

/** The built gateway as its own process, so it can be killed with SIGKILL mid-run. */
function startGatewayProcess(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; url: string }> {
  const main = join(packageRoot(), 'dist', 'apps', 'gateway', 'main.js');
  const child = spawn(process.execPath, [main, '--port', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`gateway did not start:\n${out}`)), 30_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /NESTCLAW_READY (\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1] });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`gateway exited with ${code}:\n${out}`));
    });
  });
}

describe('Telegram channel across a crash', () => {
  let tg: FakeTelegramServer;
  let llm: FakeOpenAiServer;
  let db: TestDatabase;
  let home: string;
  let env: NodeJS.ProcessEnv;
  let running: ChildProcess | undefined;

  beforeAll(async () => {
    if (!existsSync(join(packageRoot(), 'dist', 'apps', 'gateway', 'main.js'))) {
      execFileSync('npx', ['nest', 'build', 'gateway'], { cwd: packageRoot(), stdio: 'ignore', timeout: 120_000 });
    }
    tg = new FakeTelegramServer();
    await tg.start();
    llm = new FakeOpenAiServer();
    await llm.start();
    db = await createTestDatabase();
    home = mkdtempSync(join(tmpdir(), 'nestclaw-crash-'));
    writeFileSync(
      join(home, 'config.yaml'),
      stringify({
        models: { fake: { provider: 'openai-compatible', base_url: llm.url, api_key: 'sk-test', model: 'fake-model' } },
        channels: { telegram: { enabled: true, token: tg.token, api_root: tg.url, allow_from: users.map((u) => u.id), poll_timeout: 1 } },
        log: { level: 'warn' },
      }),
    );
    env = {
      PATH: process.env.PATH,
      NESTCLAW_HOME: home,
      NESTCLAW_TOKEN: 'crash-test-token-0123456789',
      NESTCLAW_READY_LINE: '1',
      ...(db.url ? { DATABASE_URL: db.url } : {}),
    };
  }, 150_000);

  afterAll(async () => {
    running?.kill('SIGKILL');
    await tg?.stop();
    await llm?.stop();
    await db?.drop();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('answers each of three in-flight messages exactly once after kill -9 and a restart', async () => {
    const first = await startGatewayProcess(env);
    running = first.child;
    // The model never answers during the first life: all three runs are in flight when it dies.
    llm.enqueue({ kind: 'hang' }, { kind: 'hang' }, { kind: 'hang' });
    users.forEach((u, i) => tg.dm(u, `question ${i + 1}`));
    await tg.waitFor(() => llm.requests.length >= 3, 15_000, 'three runs in flight');
    // Stored before acknowledged: Telegram has been told to forget all three updates.
    await tg.waitFor(() => tg.pending === 0, 5_000, 'updates confirmed');
    expect(tg.callsOf('sendMessage')).toHaveLength(0);
    first.child.kill('SIGKILL');
    await new Promise((r) => first.child.once('exit', r));

    const second = await startGatewayProcess(env);
    running = second.child;
    for (const [i, u] of users.entries()) {
      await tg.waitFor(() => tg.sentTo(u.id).length >= 1, 20_000, `reply to ${u.first_name}`);
      expect(telegramHtmlToText(tg.sentTo(u.id)[0].current)).toBe(`echo: question ${i + 1}`);
    }
    await new Promise((r) => setTimeout(r, 1000));
    for (const u of users) expect(tg.sentTo(u.id)).toHaveLength(1);
    const texts = tg.callsOf('sendMessage').map((c) => `${String(c.payload.chat_id)}:${String(c.payload.text)}`);
    expect(new Set(texts).size).toBe(texts.length);
    second.child.kill('SIGTERM');
    await new Promise((r) => second.child.once('exit', r));
    running = undefined;
  }, 90_000);
});
