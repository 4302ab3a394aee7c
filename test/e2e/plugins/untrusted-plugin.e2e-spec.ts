import { chmodSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { FakeOpenAiServer } from '../../fixtures/fake-openai.server';
import { eventually } from '../../support/eventually';
import { GatewayProcess, spawnGateway } from '../../support/gateway-process';
import { describeWithHostTools } from '../../support/host-tools';
import { createTestDatabase, TestDatabase } from '../../support/test-database';

const ECHO = resolve(__dirname, '../../../examples/plugins/untrusted-echo');

interface Check {
  name: string;
  status: string;
  message: string;
}
interface Approval {
  id: string;
  tool: string;
  status: string;
}

/**
 * An untrusted (Track B) plugin through the built gateway: the sample, a separate Node program, run
 * as a sandboxed child speaking JSON-RPC on stdio. Its manifest asks for one read-only folder, so it
 * starts only once the owner confirms the code printed on the gateway's terminal. Everything it does
 * wrong on purpose (reading outside its grant, the network, crashing, hanging, printing garbage,
 * eating memory) stays inside, and its calls still wait for approval where the policy says so.
 */
describeWithHostTools(['bubblewrap'], 'an untrusted plugin in the built gateway (bubblewrap)', () => {
  let home: string;
  let granted: string;
  let db: TestDatabase;
  let llm: FakeOpenAiServer;
  let gw: GatewayProcess;
  let listener: Server;
  let connections = 0;

  beforeAll(async () => {
    llm = new FakeOpenAiServer();
    await llm.start();
    db = await createTestDatabase();
    home = mkdtempSync(join(tmpdir(), 'nestclaw-plugin-b-'));
    granted = mkdtempSync(join(tmpdir(), 'nestclaw-plugin-grant-'));
    chmodSync(granted, 0o755);
    writeFileSync(join(granted, 'allowed.txt'), '允许读取的内容');
    chmodSync(join(granted, 'allowed.txt'), 0o644);
    writeFileSync(join(home, 'outside.txt'), 'not for plugins');
    // The sample, installed as a folder under $NESTCLAW_HOME/plugins, asking for one read-only folder.
    const dir = join(home, 'plugins', 'untrusted-echo');
    cpSync(ECHO, dir, { recursive: true });
    const manifestFile = join(dir, 'nestclaw.plugin.json');
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as { permissions: unknown };
    manifest.permissions = { network: false, shell: false, fs: [{ path: granted, mode: 'ro' }] };
    writeFileSync(manifestFile, JSON.stringify(manifest));
    listener = createServer((s) => {
      connections++;
      s.destroy();
    });
    await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
    const config = {
      models: { fake: { provider: 'openai-compatible', base_url: llm.url, api_key: 'sk-test', model: 'fake-model' } },
      agents: { default: { tools: ['untrusted-echo.*'] } },
      tools: { approval: { required: ['shell', 'file_write', 'http_request', 'echo_fetch'] } },
    };
    writeFileSync(join(home, 'config.yaml'), stringify(config));
    gw = await spawnGateway({
      PATH: process.env.PATH,
      NESTCLAW_HOME: home,
      NESTCLAW_TOKEN: 'test-token-plugin-b',
      ...(db.url ? { DATABASE_URL: db.url } : {}),
    });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    await llm?.stop();
    await db?.drop();
    listener?.close();
    rmSync(home, { recursive: true, force: true });
    rmSync(granted, { recursive: true, force: true });
  });

  const check = async () => {
    const { checks } = (await (await gw.api('/doctor')).json()) as { checks: Check[] };
    return checks.find((c) => c.name === 'plugin untrusted-echo')!;
  };
  const running = (restarts?: number) =>
    eventually(
      `untrusted-echo running${restarts ? ` after ${restarts} restart(s)` : ''}`,
      async () => {
        const c = await check();
        return c.status === 'ok' && c.message.includes('running') && (!restarts || c.message.includes(`${restarts} restart(s)`)) && c;
      },
      20_000,
    );
  const call = async (tool: string, args: Record<string, unknown> = {}) => {
    const res = await gw.api('/v1/chat', { json: { message: `go [tool:${tool} ${JSON.stringify(args)}]` } });
    expect(res.status).toBe(200);
    return ((await res.json()) as { reply: string }).reply;
  };
  const restartsNow = async () => Number(/(\d+) restart\(s\)/.exec((await check()).message)?.[1] ?? 0);

  it('waits for the owner: nothing runs until the code printed on the terminal is confirmed', async () => {
    const waiting = await check();
    expect(waiting.status).toBe('warn');
    expect(waiting.message).toBe('v1.0.0, untrusted track: awaiting-confirmation');
    const code = /untrusted-echo .* with code ([A-Z0-9]{8}):/s.exec(gw.output())?.[1];
    expect(code).toBeDefined();
    expect(await call('echo_text', { text: 'x' })).toBe('tool said: error: unknown tool "echo_text"');
    const wrong = await gw.api('/v1/plugins/untrusted-echo/confirm', { json: { code: 'WRONGCOD' } });
    expect(wrong.status).toBe(401);
    const ok = await gw.api('/v1/plugins/untrusted-echo/confirm', { json: { code } });
    expect(ok.status).toBe(200);
    const c = await running();
    expect(c.message).toMatch(/tools: echo_text, echo_read_file/);
    expect(JSON.parse(readFileSync(join(home, 'plugins', '.grants.json'), 'utf8'))['untrusted-echo'].permissions).toMatch(/^[0-9a-f]{64}$/);
  });

  it('runs its tool in the sandbox, Chinese intact', async () => {
    expect(await call('echo_text', { text: '你好，插件 🌏' })).toBe('tool said: echo: 你好，插件 🌏');
  });

  it('reads inside its read-only grant, and nothing outside it', async () => {
    expect(await call('echo_read_file', { path: join(granted, 'allowed.txt') })).toBe('tool said: 允许读取的内容');
    expect(await call('echo_read_file', { path: join(home, 'outside.txt') })).toMatch(
      /^tool said: error: ENOENT: no such file or directory/,
    );
    expect(await call('echo_read_file', { path: join(home, 'config.yaml') })).toMatch(
      /^tool said: error: ENOENT: no such file or directory/,
    );
    expect(await call('echo_read_file', { path: '/etc/shadow' })).toMatch(/^tool said: error: (ENOENT|EACCES): /);
  });

  it('still waits for approval where the policy says so, and has no network once approved', async () => {
    const port = (listener.address() as { port: number }).port;
    const reply = call('echo_fetch', { host: '127.0.0.1', port });
    const approval = await eventually('a pending approval for echo_fetch', async () => {
      const { approvals } = (await (await gw.api('/v1/approvals?status=pending')).json()) as { approvals: Approval[] };
      return approvals.find((a) => a.tool === 'echo_fetch');
    });
    expect((await gw.api(`/v1/approvals/${approval.id}`, { json: { decision: 'approve' } })).status).toBe(201);
    expect(await reply).toMatch(/^tool said: error: connect (ECONNREFUSED|ENETUNREACH|EHOSTUNREACH)/);
    expect(connections).toBe(0);
  });

  it('contains output that is not JSON-RPC: logged and ignored, the call still answered', async () => {
    expect(await call('echo_noise')).toBe('tool said: answered after the noise');
    expect(await call('echo_text', { text: 'after noise' })).toBe('tool said: echo: after noise');
  });

  it('contains a crash: the call fails as a tool error and the plugin is restarted with backoff', async () => {
    const before = await restartsNow();
    expect(await call('echo_crash')).toMatch(
      /^tool said: error: plugin untrusted-echo failed on echo_crash: the plugin process exited \(code 3\)/,
    );
    await running(before + 1);
    expect(await call('echo_text', { text: 'back' })).toBe('tool said: echo: back');
  });

  it('contains a hang: the call times out, the plugin is started afresh, other turns go on', async () => {
    const before = await restartsNow();
    const hung = call('echo_hang');
    const started = Date.now();
    expect(await hung).toBe('tool said: error: plugin untrusted-echo did not answer echo_hang within 3000 ms (the call was cancelled)');
    expect(Date.now() - started).toBeLessThan(10_000);
    await running(before + 1);
    expect(await call('echo_text', { text: 'after hang' })).toBe('tool said: echo: after hang');
  });

  it('contains a memory hog within its limit', async () => {
    const before = await restartsNow();
    expect(await call('echo_memory')).toMatch(/^tool said: error: plugin untrusted-echo failed on echo_memory: the plugin process exited/);
    await running(before + 1);
    expect(await call('echo_text', { text: 'after memory' })).toBe('tool said: echo: after memory');
    expect((await gw.api('/health')).status).toBe(200);
  });
});
