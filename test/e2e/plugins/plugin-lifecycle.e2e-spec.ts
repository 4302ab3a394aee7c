import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { FakeOpenAiServer } from '../../fixtures/fake-openai.server';
import { runCli } from '../../support/cli-process';
import { eventually } from '../../support/eventually';
import { GatewayProcess, spawnGateway } from '../../support/gateway-process';
import { describeWithHostTools } from '../../support/host-tools';
import { createTestDatabase, TestDatabase } from '../../support/test-database';

const ECHO = resolve(__dirname, '../../../examples/plugins/untrusted-echo');
const HELLO = resolve(__dirname, '../../../examples/plugins/hello-trusted');
const RELAY = resolve(__dirname, '../../../examples/plugins/relay-chat');
const TOKEN = 'test-token-plugin-lifecycle';

interface Status {
  name: string;
  state: string;
  trusted: boolean;
  tools: string[];
  pid?: number;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * Plugins installed, trusted, disabled and enabled while the built gateway runs: `nestclaw plugins
 * install|trust|enable|disable` on the host write the owner's choice and ask the running gateway to
 * re-read the plugin, which applies it without a restart. Installing never runs a plugin's code.
 */
describeWithHostTools(['bubblewrap'], 'plugin lifecycle in a running gateway', () => {
  let home: string;
  let scratch: string;
  let db: TestDatabase;
  let llm: FakeOpenAiServer;
  let gw: GatewayProcess;
  const env = () => ({ PATH: process.env.PATH, NESTCLAW_HOME: home, NESTCLAW_TOKEN: TOKEN });
  const marker = () => join(scratch, 'plugin-code-ran');

  beforeAll(async () => {
    llm = new FakeOpenAiServer();
    await llm.start();
    db = await createTestDatabase();
    home = mkdtempSync(join(tmpdir(), 'nestclaw-plugin-life-'));
    scratch = mkdtempSync(join(tmpdir(), 'nestclaw-plugin-life-src-'));
    const config = {
      models: {
        fake: { provider: 'openai-compatible', base_url: llm.url, api_key: 'sk-test', model: 'fake-model' },
        echo: { provider: 'plugin:hello-echo', model: 'hello-model' },
      },
      providers: { primary: 'fake' },
      agents: { default: { tools: ['untrusted-echo.*', 'hello_greet', 'asker.*'] } },
    };
    writeFileSync(join(home, 'config.yaml'), stringify(config));
    gw = await spawnGateway({ ...env(), ...(db.url ? { DATABASE_URL: db.url } : {}) });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    await llm?.stop();
    await db?.drop();
    rmSync(home, { recursive: true, force: true });
    rmSync(scratch, { recursive: true, force: true });
  });

  const plugin = async (name: string) => {
    const { plugins } = (await (await gw.api('/v1/plugins')).json()) as { plugins: Status[] };
    return plugins.find((p) => p.name === name);
  };
  const inState = (name: string, state: string) =>
    eventually(
      `${name} ${state}`,
      async () => {
        const p = await plugin(name);
        return p?.state === state && p;
      },
      20_000,
    );
  const call = async (tool: string, args: Record<string, unknown>) => {
    const res = await gw.api('/v1/chat', { json: { message: `go [tool:${tool} ${JSON.stringify(args)}]` } });
    expect(res.status).toBe(200);
    return ((await res.json()) as { reply: string }).reply;
  };
  const offered = () =>
    ((llm.requests[llm.requests.length - 1].body.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name);
  const writesMarker = () => `require('node:fs').writeFileSync(${JSON.stringify(marker())}, 'ran'); exports.register = () => {};`;
  const manifestIn = (dir: string, manifest: Record<string, unknown>, entry: string) => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'nestclaw.plugin.json'), JSON.stringify({ version: '1.0.0', entry: 'index.js', ...manifest }));
    writeFileSync(join(dir, 'index.js'), entry);
  };

  it('installs a folder with the gateway running: listed untrusted, and its tool works without a restart', async () => {
    const r = await runCli(['plugins', 'install', ECHO], env());
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`installed untrusted-echo 1.0.0 in ${join(home, 'plugins', 'untrusted-echo')}`);
    expect(r.stdout).toContain('permissions: none (closed sandbox)');
    expect(r.stdout).toContain('It is installed UNTRUSTED');
    expect(r.stdout).toContain('The running gateway applied it: untrusted-echo is');
    const p = await inState('untrusted-echo', 'running');
    expect(p.trusted).toBe(false);
    expect(p.pid).toEqual(expect.any(Number));
    expect(await call('echo_text', { text: '你好' })).toBe('tool said: echo: 你好');
  });

  it('disables it at once: its process is gone and a new turn no longer offers or runs its tools', async () => {
    const { pid } = (await plugin('untrusted-echo'))!;
    expect(alive(pid!)).toBe(true);
    const r = await runCli(['plugins', 'disable', 'untrusted-echo'], env());
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('The running gateway applied it: untrusted-echo is disabled.');
    await eventually('the plugin process gone', async () => !alive(pid!), 10_000);
    expect(await call('echo_text', { text: 'x' })).toBe('tool said: error: unknown tool "echo_text"');
    expect(offered()).not.toContain('echo_text');
    const { checks } = (await (await gw.api('/doctor')).json()) as { checks: { name: string; message: string }[] };
    expect(checks.find((c) => c.name === 'plugin untrusted-echo')?.message).toBe('v1.0.0, untrusted track: disabled');
    const list = await runCli(['plugins', 'list', '--json'], env());
    const listed = (JSON.parse(list.stdout) as { plugins: Status[] }).plugins.find((p) => p.name === 'untrusted-echo');
    expect(listed?.state).toBe('disabled');
  });

  it('enables it again through the admin route: a new process, its tools back', async () => {
    const res = await gw.api('/v1/plugins/untrusted-echo/enable', { method: 'POST' });
    expect(res.status).toBe(200);
    const p = await inState('untrusted-echo', 'running');
    expect(alive(p.pid!)).toBe(true);
    expect(await call('echo_text', { text: 'again' })).toBe('tool said: echo: again');
    expect(offered()).toContain('echo_text');
    expect(JSON.parse(readFileSync(join(home, 'plugins', '.choices.json'), 'utf8'))['untrusted-echo']).toEqual({ enabled: true });
  });

  it('loads a trusted-track plugin in-process only once the owner trusts it on the host, without a restart', async () => {
    const r = await runCli(['plugins', 'install', HELLO], env());
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('nestclaw plugins trust hello-trusted');
    expect((await inState('hello-trusted', 'not-trusted')).tools).toEqual([]);
    const refused = await runCli(['plugins', 'trust', 'hello-trusted'], env());
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('pass --yes');
    const t = await runCli(['plugins', 'trust', 'hello-trusted', '--yes'], env());
    expect(t.code).toBe(0);
    expect(t.stdout).toContain('The running gateway applied it: hello-trusted is loaded (tools: hello_greet).');
    expect(await call('hello_greet', { name: '世界' })).toBe('tool said: Hello, 世界!');
  });

  it("disables (or untrusts) a trusted plugin at once: its tool gone, its provider's model misconfigured", async () => {
    const misconfigured = async () =>
      ((await (await gw.api('/v1/providers')).json()) as { misconfigured: { name: string }[] }).misconfigured.map((m) => m.name);
    expect(await misconfigured()).not.toContain('echo');
    const r = await runCli(['plugins', 'disable', 'hello-trusted'], env());
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('The running gateway applied it: hello-trusted is disabled.');
    expect(await misconfigured()).toContain('echo');
    expect(await call('hello_greet', { name: 'x' })).toBe('tool said: error: unknown tool "hello_greet"');
    const back = await gw.api('/v1/plugins/hello-trusted/enable', { method: 'POST' });
    expect(((await back.json()) as { plugin: Status }).plugin.state).toBe('loaded');
    expect(await misconfigured()).not.toContain('echo');
    const revoked = await runCli(['plugins', 'trust', 'hello-trusted', '--revoke'], env());
    expect(revoked.stdout).toContain('The running gateway applied it: hello-trusted is not-trusted.');
    expect(await call('hello_greet', { name: 'x' })).toBe('tool said: error: unknown tool "hello_greet"');
    expect(await misconfigured()).toContain('echo');
  });

  it('says a restart is needed when trusting a plugin that adds a channel', async () => {
    expect((await runCli(['plugins', 'install', RELAY], env())).code).toBe(0);
    const t = await runCli(['plugins', 'trust', 'relay-chat', '--yes'], env());
    expect(t.code).toBe(0);
    expect(t.stdout).toContain('plugin relay-chat adds channels (relay), which a running gateway cannot swap: restart it to apply');
    const res = await gw.api('/v1/plugins/relay-chat/disable', { method: 'POST' });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { restartNeeded?: string }).restartNeeded).toMatch(/restart it to apply/);
  });

  it('prints a new confirmation code for an installed plugin that asks for permissions, and starts it once confirmed', async () => {
    const dir = join(scratch, 'asker');
    mkdirSync(dir);
    writeFileSync(join(dir, 'server.js'), readFileSync(join(ECHO, 'server.js')));
    const manifest = JSON.parse(readFileSync(join(ECHO, 'nestclaw.plugin.json'), 'utf8')) as Record<string, unknown>;
    const perms = { network: false, shell: false, fs: [{ path: scratch, mode: 'ro' }] };
    writeFileSync(join(dir, 'nestclaw.plugin.json'), JSON.stringify({ ...manifest, name: 'asker', permissions: perms }));
    const r = await runCli(['plugins', 'install', dir], env());
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`permissions: ro ${scratch}`);
    expect(r.stdout).toContain('The gateway printed a confirmation code on its terminal: nestclaw plugins confirm asker <code>');
    expect((await plugin('asker'))?.state).toBe('awaiting-confirmation');
    const code = /plugin asker .* with code ([A-Z0-9]{8}):/s.exec(gw.output())?.[1];
    expect(code).toBeDefined();
    const ok = await runCli(['plugins', 'confirm', 'asker', code!], env());
    expect(ok.code).toBe(0);
    await inState('asker', 'running');
  });

  it('refuses a bad manifest before any plugin code runs, and installs nothing', async () => {
    const dir = join(scratch, 'bad');
    manifestIn(dir, { name: 'bad', track: 'sideways' }, writesMarker());
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'bad', scripts: { preinstall: `touch ${marker()}` } }));
    const r = await runCli(['plugins', 'install', dir], env());
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('not installed: nestclaw.plugin.json');
    expect(existsSync(join(home, 'plugins', 'bad'))).toBe(false);
    expect(existsSync(marker())).toBe(false);
  });

  it('installs a trusted-track plugin from a .tgz without running it', async () => {
    const pkg = join(scratch, 'tgz', 'package');
    manifestIn(pkg, { name: 'packed', track: 'trusted', contributes: { tools: ['packed_tool'] } }, writesMarker());
    const tgz = join(scratch, 'packed.tgz');
    execFileSync('tar', ['-czf', tgz, '-C', join(scratch, 'tgz'), 'package']);
    const r = await runCli(['plugins', 'install', tgz], env());
    expect(r.code).toBe(0);
    expect((await inState('packed', 'not-trusted')).trusted).toBe(false);
    expect(existsSync(join(home, 'plugins', 'packed', 'index.js'))).toBe(true);
    expect(existsSync(marker())).toBe(false);
  });

  it('refuses a name already installed unless --force', async () => {
    const r = await runCli(['plugins', 'install', ECHO], env());
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('a plugin named "untrusted-echo" is already installed');
    const forced = await runCli(['plugins', 'install', ECHO, '--force'], env());
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain('replaced untrusted-echo 1.0.0');
    await inState('untrusted-echo', 'running');
    // The replaced process exits after the new one started: its last word must not take the new one's tools.
    expect(await call('echo_text', { text: 'new' })).toBe('tool said: echo: new');
  });

  it('refuses a plugin with a symlink leading out of its folder', async () => {
    const dir = join(scratch, 'leaky');
    manifestIn(dir, { name: 'leaky', track: 'untrusted' }, 'process.stdin.resume();');
    symlinkSync(join(home, 'config.yaml'), join(dir, 'config-link'));
    const r = await runCli(['plugins', 'install', dir], env());
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("config-link is a symlink leading out of the plugin's folder");
    expect(existsSync(join(home, 'plugins', 'leaky'))).toBe(false);
  });

  it('guards the admin routes: 401 without a token, 404 not_found for an unknown plugin', async () => {
    for (const action of ['enable', 'disable', 'reload']) {
      const anon = await fetch(`${gw.url}/v1/plugins/untrusted-echo/${action}`, { method: 'POST' });
      expect(anon.status).toBe(401);
      const unknown = await gw.api(`/v1/plugins/no-such-plugin/${action}`, { method: 'POST' });
      expect(unknown.status).toBe(404);
      expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe('not_found');
    }
    expect((await plugin('untrusted-echo'))?.state).toBe('running');
  });
});
