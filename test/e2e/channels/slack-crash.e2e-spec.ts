import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { interruptedNotice } from '@nestclaw/agent';
import { slackMrkdwnToText } from '@nestclaw/channel';
import { FakeOpenAiServer } from '../../fixtures/fake-openai.server';
import { FakeSlackServer, SlackPosted, SlackUser } from '../../fixtures/fake-slack.server';
import { GatewayProcess, spawnGateway } from '../../support/gateway-process';
import { createTestDatabase, TestDatabase } from '../../support/test-database';

const users: SlackUser[] = [
  { id: 'U0ANN00001', name: 'ann' },
  { id: 'U0BEN00002', name: 'ben' },
  { id: 'U0CAT00003', name: 'cat' },
];
/** A boot may take long on a loaded machine (2 cores shared with builds): test timeouts allow for it. */
const BOOT_MS = Number(process.env.CRASH_BOOT_MS ?? 90_000);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('Slack channel across a crash', () => {
  let sl: FakeSlackServer;
  let llm: FakeOpenAiServer;
  let db: TestDatabase;
  let home: string;
  let env: NodeJS.ProcessEnv;
  let running: GatewayProcess | undefined;

  beforeAll(async () => {
    sl = new FakeSlackServer();
    await sl.start();
    llm = new FakeOpenAiServer();
    await llm.start();
    db = await createTestDatabase();
    home = mkdtempSync(join(tmpdir(), 'nestclaw-slack-crash-'));
    writeFileSync(
      join(home, 'config.yaml'),
      stringify({
        models: { fake: { provider: 'openai-compatible', base_url: llm.url, api_key: 'sk-test', model: 'fake-model' } },
        channels: {
          slack: {
            enabled: true,
            bot_token: sl.botToken,
            app_token: sl.appToken,
            api_root: sl.apiRoot,
            allow_from: users.map((u) => u.id),
            stream_edit_interval: 50,
          },
        },
        security: { rate_limit: { per_sender: { limit: 1000, window: '1m' } } },
      }),
    );
    env = {
      PATH: process.env.PATH,
      NESTCLAW_HOME: home,
      NESTCLAW_TOKEN: 'crash-test-token-0123456789',
      ...(db.url ? { DATABASE_URL: db.url } : {}),
    };
  }, 150_000);

  afterAll(async () => {
    await running?.kill9();
    await sl?.stop();
    await llm?.stop();
    await db?.drop();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('loses nothing and doubles nothing across 10 kill -9 under a steady load (unacknowledged envelopes are redelivered)', async () => {
    const KILLS = 10;
    const MESSAGES = 40;
    sl.latencyMs = 20;
    llm.tokenDelayMs = 10;
    const texts: { user: SlackUser; text: string }[] = [];
    const load = (async () => {
      for (let i = 0; i < MESSAGES; i++) {
        const user = users[i % users.length];
        const text = `m${String(i).padStart(2, '0')} from ${user.name} 你好`;
        texts.push({ user, text });
        sl.dm(user, text);
        await sleep(150);
      }
    })();
    for (let kill = 0; kill < KILLS; kill++) {
      running = await spawnGateway(env, BOOT_MS);
      await sleep(100 + Math.random() * 600);
      await running.kill9();
      running = undefined;
    }
    await load;
    running = await spawnGateway(env, BOOT_MS);

    const final = (m: SlackPosted) => slackMrkdwnToText(m.current);
    const answersTo = (u: SlackUser, text: string) =>
      sl.postedTo(sl.dmChannelOf(u)).filter((m) => final(m) === `echo: ${text}` || final(m) === interruptedNotice(text));
    await sl.waitFor(() => texts.every(({ user, text }) => answersTo(user, text).length > 0), 60_000, 'every message answered');
    await sl.waitFor(() => sl.unacked === 0, 10_000, 'every envelope acknowledged');
    await sleep(500); // let a late duplicate, if any, land
    await running.stop();
    running = undefined;

    const lost = texts.filter(({ user, text }) => answersTo(user, text).length === 0).map((t) => t.text);
    const doubled = texts.filter(({ user, text }) => answersTo(user, text).length > 1).map((t) => t.text);
    const complete = new Set(texts.flatMap(({ text }) => [`echo: ${text}`, interruptedNotice(text)]));
    const strays = sl.posted.filter((m) => !complete.has(final(m))).map(final);
    const redelivered = sl.delivered.filter((d) => d.retry_attempt > 0).length;
    console.log(`slack crash run: ${JSON.stringify({ kills: KILLS, messages: MESSAGES, redelivered, strays: strays.length })}`);
    expect(lost).toEqual([]);
    expect(doubled).toEqual([]);
    // A kill between a send and its record leaves at most the placeholder, never a second reply.
    expect(strays.filter((t) => t !== '…')).toEqual([]);
  }, 600_000);
});
