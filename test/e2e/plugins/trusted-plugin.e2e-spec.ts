import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { FakeOpenAiServer } from '../../fixtures/fake-openai.server';
import { runCli } from '../../support/cli-process';
import { GatewayProcess, spawnGateway } from '../../support/gateway-process';
import { createTestDatabase, TestDatabase } from '../../support/test-database';

const HELLO = resolve(__dirname, '../../../examples/plugins/hello-trusted');

interface Check {
  name: string;
  status: string;
  message: string;
}

/**
 * A trusted (Track A) plugin through the built gateway (dist/, as `nestclaw start` runs it): the
 * sample's tool called by the fake model through the tool registry, and its model provider answering
 * a turn through the ReliableProvider. Plugins that must not load are listed, and never run.
 */
describe('a trusted plugin in the built gateway', () => {
  let home: string;
  let db: TestDatabase;
  let llm: FakeOpenAiServer;
  let gw: GatewayProcess;
  const marker = () => join(home, 'unmarked-ran');

  beforeAll(async () => {
    llm = new FakeOpenAiServer();
    await llm.start();
    db = await createTestDatabase();
    home = mkdtempSync(join(tmpdir(), 'nestclaw-plugin-a-'));
    // Asks for the trusted track in $NESTCLAW_HOME/plugins, but the owner never marked it: its code must not run.
    const unmarked = join(home, 'plugins', 'unmarked');
    mkdirSync(unmarked, { recursive: true });
    writeFileSync(
      join(unmarked, 'nestclaw.plugin.json'),
      JSON.stringify({
        name: 'unmarked',
        version: '1.0.0',
        entry: 'index.js',
        track: 'trusted',
        contributes: { tools: ['unmarked_tool'] },
      }),
    );
    writeFileSync(
      join(unmarked, 'index.js'),
      `require('node:fs').writeFileSync(${JSON.stringify(marker())}, 'ran'); exports.register = () => {};`,
    );
    const broken = join(home, 'plugins', 'broken');
    mkdirSync(broken);
    writeFileSync(join(broken, 'nestclaw.plugin.json'), '{ "name": "broken", ');
    const config = {
      models: {
        fake: { provider: 'openai-compatible', base_url: llm.url, api_key: 'sk-test', model: 'fake-model' },
        echo: { provider: 'plugin:hello-echo', model: 'hello-model' },
      },
      providers: { primary: 'fake' },
      agents: {
        default: { tools: ['current_time', 'hello_greet', 'unmarked_tool'] },
        echoer: { model: 'echo', tools: [] },
      },
      plugins: [{ path: HELLO, trusted: true, config: { greeting: '你好' } }],
    };
    writeFileSync(join(home, 'config.yaml'), stringify(config));
    gw = await spawnGateway({
      PATH: process.env.PATH,
      NESTCLAW_HOME: home,
      NESTCLAW_TOKEN: 'test-token-plugin-a',
      ...(db.url ? { DATABASE_URL: db.url } : {}),
    });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    await llm?.stop();
    await db?.drop();
    rmSync(home, { recursive: true, force: true });
  });

  const chat = async (message: string, agentId?: string) => {
    const res = await gw.api('/v1/chat', { json: { message, ...(agentId ? { agentId } : {}) } });
    return { status: res.status, body: (await res.json()) as { reply: string } };
  };

  it("offers the plugin's tool to the model and runs it when the model calls it, Chinese intact", async () => {
    const { status, body } = await chat('go [tool:hello_greet {"name":"世界"}]');
    expect(status).toBe(200);
    expect(body.reply).toBe('tool said: 你好, 世界!');
    const offered = (llm.requests[0].body as { tools: { function: { name: string; description: string } }[] }).tools.map((t) => t.function);
    expect(offered.find((t) => t.name === 'hello_greet')?.description).toBe('[plugin hello-trusted] Greets someone by name');
    expect(offered.map((t) => t.name)).not.toContain('unmarked_tool');
  });

  it("checks the model's input against the plugin's schema before the plugin runs", async () => {
    const { body } = await chat('go [tool:hello_greet {"name":""}]');
    expect(body.reply).toMatch(/^tool said: error: .*name/);
  });

  it("answers a turn with the plugin's model provider, through the ReliableProvider", async () => {
    const before = llm.requests.length;
    const { status, body } = await chat('早上好', 'echoer');
    expect(status).toBe(200);
    expect(body.reply).toBe('hello-model says: 你好! You wrote: 早上好');
    expect(llm.requests.length).toBe(before);
    const providers = (await (await gw.api('/v1/providers')).json()) as { models: { name: string }[] };
    expect(providers.models.map((m) => m.name)).toContain('echo');
  });

  it('lists every plugin in /doctor and GET /v1/plugins; an unmarked trusted-track plugin never ran', async () => {
    const { checks } = (await (await gw.api('/doctor')).json()) as { checks: Check[] };
    const line = (name: string) => checks.find((c) => c.name === `plugin ${name}`);
    expect(line('hello-trusted')).toMatchObject({ status: 'ok', message: 'v1.0.0, trusted track: loaded, tools: hello_greet' });
    expect(line('unmarked')).toMatchObject({ status: 'warn', message: 'v1.0.0, trusted track: not-trusted' });
    expect(line('broken')?.status).toBe('fail');
    expect(line('broken')?.message).toMatch(/nestclaw\.plugin\.json is not JSON/);
    expect(existsSync(marker())).toBe(false);
    const { plugins } = (await (await gw.api('/v1/plugins')).json()) as { plugins: { name: string; state: string; config?: unknown }[] };
    expect(plugins.map((p) => [p.name, p.state])).toEqual([
      ['broken', 'failed'],
      ['unmarked', 'not-trusted'],
      ['hello-trusted', 'loaded'],
    ]);
    expect(JSON.stringify(plugins)).not.toContain('你好');
  });

  it('`nestclaw plugins list` shows the same plugins from their manifests, without a gateway or running them', async () => {
    const env = { PATH: process.env.PATH, NESTCLAW_HOME: home };
    const json = await runCli(['plugins', 'list', '--json'], env);
    expect(json.code).toBe(1); // one plugin failed
    const { plugins } = JSON.parse(json.stdout) as { plugins: { name: string; state: string; trusted: boolean }[] };
    expect(plugins.map((p) => [p.name, p.state, p.trusted])).toEqual([
      ['broken', 'failed', false],
      ['unmarked', 'not-trusted', false],
      ['hello-trusted', 'found', true],
    ]);
    const text = await runCli(['plugins'], env);
    expect(text.stdout).toContain('hello-trusted 1.0.0  trusted (marked trusted)  ok');
    expect(text.stdout).toContain('tools: hello_greet; providers: plugin:hello-echo');
    expect(existsSync(marker())).toBe(false);
  });
});
