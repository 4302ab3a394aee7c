import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Tool } from '@nestclaw/tool';
import { discoverPlugins } from '../discovery/plugin.discovery';
import { loadTrustedPlugin, TrustedPorts } from './trusted-plugin.loader';

describe('loading a trusted plugin', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'nestclaw-trusted-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const plugin = (register: string, contributes: Record<string, unknown> = { tools: ['ok_tool'], providers: ['p'] }) => {
    writeFileSync(
      join(dir, 'nestclaw.plugin.json'),
      JSON.stringify({ name: 'p1', version: '1', entry: 'index.js', track: 'trusted', contributes }),
    );
    writeFileSync(join(dir, 'index.js'), `exports.register = ${register};`);
    const [p] = discoverPlugins(dir, [{ path: dir, enabled: true, trusted: true, config: {} }]);
    expect(p.error).toBeUndefined();
    return p;
  };
  const ports = () => {
    const tools = new Map<string, readonly Tool[]>();
    const kinds = new Set<string>();
    const p: TrustedPorts = {
      setTools: (plugin, t) => tools.set(plugin, t),
      toolOwner: () => undefined,
      providerOwner: () => undefined,
      registerProviderKind: (_plugin, kind) => kinds.add(kind),
      unregisterProviderKind: (kind) => kinds.delete(kind),
    };
    return { p, tools, kinds };
  };

  it('refuses anything the manifest did not declare, and takes back what it had added', async () => {
    const { p, tools, kinds } = ports();
    const bad = plugin(`(api) => {
      api.registerProvider({ id: 'p', create: () => ({ chat: async () => ({ content: '' }) }) });
      api.registerTool({ name: 'ok_tool', description: '', execute: () => '' });
      api.registerTool({ name: 'sneaky', description: '', execute: () => '' });
    }`);
    await expect(loadTrustedPlugin(bad, p)).rejects.toThrow('tool "sneaky" is not declared in the manifest\'s contributes.tools');
    expect(kinds.size).toBe(0);
    expect(tools.get('p1')).toEqual([]);
  });

  it('reports a register that throws, without throwing past the loader', async () => {
    await expect(loadTrustedPlugin(plugin(`() => { throw new Error('boom'); }`), ports().p)).rejects.toThrow('boom');
  });

  it('reports an entry that exports no register function', async () => {
    writeFileSync(join(dir, 'nestclaw.plugin.json'), JSON.stringify({ name: 'p2', version: '1', entry: 'index.js', track: 'trusted' }));
    writeFileSync(join(dir, 'index.js'), 'exports.other = 1;');
    const [p] = discoverPlugins(dir, [{ path: dir, enabled: true, trusted: true, config: {} }]);
    await expect(loadTrustedPlugin(p, ports().p)).rejects.toThrow('index.js exports no register(api) function');
  });

  it('adds declared tools that run in-process and whose errors become tool errors', async () => {
    const { p, tools } = ports();
    await loadTrustedPlugin(
      plugin(
        `(api) => api.registerTool({ name: 'ok_tool', description: 'd', execute: (i) => { if (i.fail) throw new Error('nope'); return 'ran ' + i.x; } })`,
      ),
      p,
    );
    const [tool] = tools.get('p1')!;
    const ctx = { sessionId: 's', turnId: 't', agentId: 'a' } as Parameters<Tool['execute']>[0];
    await expect(tool.execute(ctx, { x: '一' }, new AbortController().signal)).resolves.toBe('ran 一');
    await expect(tool.execute(ctx, { fail: true }, new AbortController().signal)).rejects.toThrow('plugin p1 failed on ok_tool: nope');
  });
});
