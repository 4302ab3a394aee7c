import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { FakeOpenAiServer } from '../../fixtures/fake-openai.server';
import { FakeRelayServer } from '../../fixtures/fake-relay.server';
import { eventually } from '../../support/eventually';
import { GatewayProcess, spawnGateway } from '../../support/gateway-process';
import { createTestDatabase, TestDatabase } from '../../support/test-database';

const RELAY = resolve(__dirname, '../../../examples/plugins/relay-chat');
const TOKEN = 'relay-token-0123456789';

/**
 * A channel added by a trusted plugin (examples/plugins/relay-chat) in the built gateway, against a
 * fake of the relay service it speaks: its messages take the built-in channels' path (access policy and
 * pairing, inbound dedupe, routing, the agent, split and exactly-once delivery), across a kill -9 too.
 */
describe('a channel added by a trusted plugin', () => {
  let relay: FakeRelayServer;
  let llm: FakeOpenAiServer;
  let db: TestDatabase;
  let home: string;
  let env: NodeJS.ProcessEnv;
  let gw: GatewayProcess;

  beforeAll(async () => {
    relay = new FakeRelayServer(TOKEN);
    await relay.start();
    llm = new FakeOpenAiServer();
    await llm.start();
    db = await createTestDatabase();
    home = mkdtempSync(join(tmpdir(), 'nestclaw-plugin-channel-'));
    // A second plugin claiming the same channel id (loaded after it: config order) must not take over the first one's.
    const copy = join(home, 'elsewhere', 'relay-copy');
    mkdirSync(copy, { recursive: true });
    writeFileSync(
      join(copy, 'nestclaw.plugin.json'),
      JSON.stringify({ name: 'relay-copy', version: '0.1.0', entry: 'index.js', track: 'trusted', contributes: { channels: ['relay'] } }),
    );
    writeFileSync(
      join(copy, 'index.js'),
      `exports.register = (api) => api.registerChannel({ id: 'relay', capabilities: { maxMessageLength: 10, format: 'plain', edit: false, typing: false, buttons: false, idempotentSend: false },
        start: async () => undefined, send: async () => ({ platformMessageId: 'x' }), stop: async () => undefined });`,
    );
    writeFileSync(
      join(home, 'config.yaml'),
      stringify({
        models: { fake: { provider: 'openai-compatible', base_url: llm.url, api_key: 'sk-test', model: 'fake-model' } },
        plugins: [
          { path: RELAY, trusted: true, config: { url: relay.url, token: TOKEN, maxMessageLength: 400 } },
          { path: copy, trusted: true },
        ],
        channels: { plugins: { relay: { allow_from: ['alice', 'bob'] } } },
        security: { rate_limit: { per_sender: { limit: 1000, window: '1m' } } },
      }),
    );
    env = {
      PATH: process.env.PATH,
      NESTCLAW_HOME: home,
      NESTCLAW_TOKEN: 'test-token-plugin-channel',
      ...(db.url ? { DATABASE_URL: db.url } : {}),
    };
    gw = await spawnGateway(env);
  }, 60_000);

  afterAll(async () => {
    await gw?.stop();
    await relay?.stop();
    await llm?.stop();
    await db?.drop();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  const textsTo = (chat: string) => relay.sentTo(chat).map((s) => s.text);

  it('answers an allowed sender through the agent, in Chinese, and acknowledges the message only after storing it', async () => {
    const id = relay.inject('chat-alice', 'alice', '你好，插件频道', 'Alice');
    await eventually('the answer', async () => textsTo('chat-alice').includes('echo: 你好，插件频道'), 15_000);
    expect(relay.pending(id)).toBe(false);
    expect(llm.requests.at(-1)!.body.messages.at(-1)).toMatchObject({ role: 'user', content: '你好，插件频道' });
    const { sessions } = (await (await gw.api('/v1/sessions?channel=relay')).json()) as { sessions: { id: string; channel: string }[] };
    expect(sessions.map((s) => s.channel)).toContain('relay');
  });

  it("gives a stranger a pairing code without calling the model, and lets them chat once it's approved", async () => {
    const calls = llm.requests.length;
    relay.inject('chat-mallory', 'mallory', 'let me in');
    const first = await eventually('the pairing reply', async () => textsTo('chat-mallory')[0], 15_000);
    const code = /pairing code: ([A-Z2-9]{8})/.exec(first)?.[1];
    expect(code).toBeDefined();
    expect(llm.requests.length).toBe(calls);
    expect((await gw.api('/v1/pairing/approve', { json: { channel: 'relay', code } })).status).toBe(200);
    relay.inject('chat-mallory', 'mallory', 'thanks');
    await eventually('the reply after approval', async () => textsTo('chat-mallory').includes('echo: thanks'), 15_000);
  });

  it('drops a message delivered twice (the inbound dedupe) and splits a long answer at the channel limit', async () => {
    const long = '长'.repeat(300) + ' ' + 'word '.repeat(120);
    llm.enqueue({ kind: 'text', text: long });
    const id = relay.inject('chat-bob', 'bob', 'tell me a long story');
    await eventually('the whole answer', async () => textsTo('chat-bob').join('').replace(/\s+/g, '') === long.replace(/\s+/g, ''), 15_000);
    const parts = textsTo('chat-bob');
    expect(parts.length).toBeGreaterThan(1);
    for (const p of parts) expect(p.length).toBeLessThanOrEqual(400);
    const calls = llm.requests.length;
    relay.redeliver(id);
    relay.inject('chat-bob', 'bob', 'after the repeat');
    await eventually('the next answer', async () => textsTo('chat-bob').includes('echo: after the repeat'), 15_000);
    expect(llm.requests.length).toBe(calls + 1);
    expect(textsTo('chat-bob').filter((t) => t.startsWith('长'))).toHaveLength(1);
  });

  it('lists the channel as running and the plugin as loaded; the plugin that claimed a taken id did not replace it', async () => {
    const { channels } = (await (await gw.api('/v1/channels')).json()) as { channels: { id: string; state: string }[] };
    expect(channels).toEqual([expect.objectContaining({ id: 'relay', state: 'running', error: null })]);
    const { plugins } = (await (await gw.api('/v1/plugins')).json()) as { plugins: { name: string; state: string; error?: string }[] };
    expect(plugins.find((p) => p.name === 'relay-chat')?.state).toBe('loaded');
    expect(plugins.find((p) => p.name === 'relay-copy')).toMatchObject({ state: 'failed', error: 'channel id "relay" is already taken' });
    const access = (await (await gw.api('/v1/channels/access')).json()) as { channels: { channel: string; allowFrom: unknown[] }[] };
    expect(JSON.stringify(access)).toContain('alice');
  });

  it('answers every message exactly once across a kill -9 while they are being answered', async () => {
    const chat = 'chat-crash';
    const texts = Array.from({ length: 6 }, (_, i) => `crash message ${i}`);
    llm.tokenDelayMs = 30;
    try {
      for (const t of texts) relay.inject(chat, 'alice', t);
      await eventually('the first answer', async () => textsTo(chat).length > 0, 15_000);
      await gw.kill9();
      // One session answers one message at a time: most were still to come when the gateway died.
      expect(textsTo(chat).length).toBeLessThan(texts.length);
      gw = await spawnGateway(env);
      await eventually('every answer', async () => texts.every((t) => textsTo(chat).includes(`echo: ${t}`)), 30_000);
    } finally {
      llm.tokenDelayMs = 0;
    }
    for (const t of texts) expect(textsTo(chat).filter((s) => s === `echo: ${t}`)).toHaveLength(1);
    const asked = llm.requests
      .map((r) => r.body.messages.at(-1)?.content)
      .filter((c) => typeof c === 'string' && c.startsWith('crash message'));
    // A message whose model request left before the kill is asked again (`recovery.interrupted_turns: rerun`), never answered twice.
    expect(new Set(asked).size).toBe(texts.length);
  }, 90_000);
});
