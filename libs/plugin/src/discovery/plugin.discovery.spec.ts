import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PluginChoicesStore } from '../confirmation/plugin-choices.store';
import { listPlugins } from '../plugin.listing';

const EXAMPLES = join(__dirname, '../../../../examples/plugins');

describe('plugin discovery (manifests only, no plugin code runs)', () => {
  let home: string;
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'nestclaw-plugins-'));
    mkdirSync(join(home, 'plugins'));
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  const folder = (name: string, manifest: unknown, files: Record<string, string> = { 'index.js': 'throw new Error("must not run")' }) => {
    const dir = join(home, 'plugins', name);
    mkdirSync(dir);
    writeFileSync(join(dir, 'nestclaw.plugin.json'), typeof manifest === 'string' ? manifest : JSON.stringify(manifest));
    for (const [f, text] of Object.entries(files)) writeFileSync(join(dir, f), text);
    return dir;
  };

  it('lists the samples with what they contribute and ask for, without loading them', () => {
    const plugins = listPlugins(home, [
      { path: join(EXAMPLES, 'hello-trusted'), enabled: true, trusted: true, config: { greeting: '你好' } },
      { path: join(EXAMPLES, 'untrusted-echo'), enabled: true, trusted: false, config: {} },
    ]);
    expect(plugins.map((p) => [p.name, p.track, p.state, p.trusted])).toEqual([
      ['hello-trusted', 'trusted', 'found', true],
      ['untrusted-echo', 'untrusted', 'found', false],
    ]);
    expect(plugins[0].contributes).toEqual({ tools: ['hello_greet'], providers: ['hello-echo'], channels: [], memoryStore: false });
    expect(plugins[1].permissions).toEqual({ network: false, fs: [], shell: false });
  });

  it('finds folders under $NESTCLAW_HOME/plugins, untrusted unless the owner says otherwise', () => {
    folder('a', { name: 'alpha', version: '1', entry: 'index.js', track: 'trusted', contributes: { tools: ['alpha_x'] } });
    const [p] = listPlugins(home, []);
    expect(p).toMatchObject({ name: 'alpha', origin: 'home', trusted: false, state: 'not-trusted' });
    const [marked] = listPlugins(home, [{ path: join(home, 'plugins', 'a'), enabled: true, trusted: true, config: {} }]);
    expect(marked).toMatchObject({ name: 'alpha', origin: 'config', trusted: true, state: 'found' });
  });

  it("applies the owner's trust/enable choices from plugins/.choices.json over config's entry", () => {
    const dir = folder('a', { name: 'alpha', version: '1', entry: 'index.js', track: 'trusted', contributes: { tools: ['alpha_x'] } });
    const choices = PluginChoicesStore.inHome(home);
    choices.set('alpha', { trusted: true });
    expect(listPlugins(home, [])[0]).toMatchObject({ trusted: true, state: 'found' });
    choices.set('alpha', { enabled: false });
    const [p] = listPlugins(home, [{ path: dir, enabled: true, trusted: false, config: {} }]);
    expect(p).toMatchObject({ trusted: true, state: 'disabled' });
  });

  it('lists every bad manifest as failed with its reason, and goes on with the others', () => {
    folder('bad-json', '{ "name": ');
    folder('bad-schema', { name: 'Bad Name', version: '1', entry: 'index.js' });
    folder('no-entry', { name: 'no-entry', version: '1', entry: 'missing.js' });
    folder('escape', { name: 'escape', version: '1', entry: '../../etc/passwd' });
    const out = mkdtempSync(join(tmpdir(), 'outside-'));
    writeFileSync(join(out, 'x.js'), '');
    folder('link', { name: 'link', version: '1', entry: 'x.js' }, {});
    symlinkSync(join(out, 'x.js'), join(home, 'plugins', 'link', 'x.js'));
    folder('perm', { name: 'perm', version: '1', entry: 'index.js', permissions: { fs: [{ path: 'relative', mode: 'rw' }] } });
    folder('tool', { name: 'tool', version: '1', entry: 'index.js', contributes: { tools: ['Has.Dot'] } });
    folder('ok', { name: 'ok', version: '1', entry: 'index.js' });
    folder('ok-again', { name: 'ok', version: '2', entry: 'index.js' });
    mkdirSync(join(home, 'plugins', 'empty'));
    const byDir = Object.fromEntries(listPlugins(home, []).map((p) => [p.dir.split('/').pop(), p]));
    expect(byDir['bad-json'].error).toMatch(/is not JSON/);
    expect(byDir['bad-schema'].error).toMatch(/name: lower-case letters/);
    expect(byDir['no-entry'].error).toBe('entry missing.js does not exist');
    expect(byDir.escape.error).toMatch(/entry: must be a path inside the plugin's folder/);
    expect(byDir.link.error).toBe("entry x.js leads out of the plugin's folder");
    expect(byDir.perm.error).toMatch(/permissions\.fs\.0\.path: must be an absolute/);
    expect(byDir.tool.error).toMatch(/contributes\.tools\.0: tool names/);
    expect(byDir.ok.state).toBe('found');
    expect(byDir['ok-again'].error).toBe('another plugin is already named "ok"');
    expect(byDir.empty.error).toMatch(/no nestclaw\.plugin\.json/);
    for (const name of ['bad-json', 'bad-schema', 'no-entry', 'escape', 'link', 'perm', 'tool', 'empty'])
      expect(byDir[name].state).toBe('failed');
    rmSync(out, { recursive: true, force: true });
  });

  it("checks the plugin's config against its configSchema before anything starts", () => {
    const [p] = listPlugins(home, [{ path: join(EXAMPLES, 'hello-trusted'), enabled: true, trusted: true, config: { greeting: 3 } }]);
    expect(p.state).toBe('failed');
    expect(p.error).toMatch(/config does not fit the plugin's configSchema: greeting/);
  });

  it('says when a configured npm package is not installed, and shows a disabled plugin as disabled', () => {
    folder('off', { name: 'off', version: '1', entry: 'index.js' });
    const plugins = listPlugins(home, [
      { package: 'nestclaw-plugin-not-installed', enabled: true, trusted: false, config: {} },
      { path: join(home, 'plugins', 'off'), enabled: false, trusted: false, config: {} },
    ]);
    expect(plugins.find((p) => p.name === 'nestclaw-plugin-not-installed')).toMatchObject({
      state: 'failed',
      error: 'npm package nestclaw-plugin-not-installed is not installed',
    });
    expect(plugins.find((p) => p.name === 'off')?.state).toBe('disabled');
  });
});
