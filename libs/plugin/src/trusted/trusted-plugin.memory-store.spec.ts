import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { discoverPlugins } from '../discovery/plugin.discovery';
import { declaredMemoryStores } from '../manifest/plugin-manifest.schema';
import { loadTrustedPlugin, TrustedPorts } from './trusted-plugin.loader';

describe('a trusted plugin registering a memory store', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'nestclaw-memstore-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const plugin = (register: string, memoryStore: unknown) => {
    writeFileSync(
      join(dir, 'nestclaw.plugin.json'),
      JSON.stringify({ name: 'mem', version: '2.0.0', entry: 'index.js', track: 'trusted', contributes: { tools: ['t'], memoryStore } }),
    );
    writeFileSync(join(dir, 'index.js'), `exports.register = ${register};`);
    const [p] = discoverPlugins(dir, [{ path: dir, enabled: true, trusted: true, config: {} }]);
    expect(p.error).toBeUndefined();
    return p;
  };
  const ports = () => {
    const stores = new Map<string, string>();
    const p: TrustedPorts = {
      setTools: () => undefined,
      toolOwner: () => undefined,
      providerOwner: () => undefined,
      registerProviderKind: () => undefined,
      unregisterProviderKind: () => undefined,
      registerMemoryStore: (name, version, def) => stores.set(def.id, `${name} ${version}`),
      unregisterMemoryStore: (id) => stores.delete(id),
    };
    return { p, stores };
  };
  const registersStore = (id: string) => `(api) => api.registerMemoryStore({ id: '${id}', create: () => ({}) })`;

  it('adds a store whose id the manifest lists, with the plugin that added it', async () => {
    const { p, stores } = ports();
    const done = await loadTrustedPlugin(plugin(registersStore('vec'), ['vec']), p);
    expect(done.memoryStores).toEqual(['vec']);
    expect(stores.get('vec')).toBe('mem 2.0.0');
  });

  it('takes `memoryStore: true` (older manifests) as a store named after the plugin', async () => {
    const { p, stores } = ports();
    await loadTrustedPlugin(plugin(registersStore('mem'), true), p);
    expect([...stores.keys()]).toEqual(['mem']);
  });

  it('fails a plugin registering a store its manifest does not declare', async () => {
    const { p, stores } = ports();
    await expect(loadTrustedPlugin(plugin(registersStore('vec'), false), p)).rejects.toThrow(
      `memory store "vec" is not declared in the manifest's contributes.memoryStore`,
    );
    expect(stores.size).toBe(0);
  });

  it('takes back a registered store when register then fails', async () => {
    const { p, stores } = ports();
    const register = `(api) => { api.registerMemoryStore({ id: 'vec', create: () => ({}) }); throw new Error('later'); }`;
    await expect(loadTrustedPlugin(plugin(register, ['vec']), p)).rejects.toThrow('later');
    expect(stores.size).toBe(0);
  });

  it('says which store ids a manifest declares', () => {
    const m = (memoryStore: boolean | string[]) => ({ name: 'mem', contributes: { tools: [], providers: [], channels: [], memoryStore } });
    expect(declaredMemoryStores(m(false))).toEqual([]);
    expect(declaredMemoryStores(m(true))).toEqual(['mem']);
    expect(declaredMemoryStores(m(['a', 'b']))).toEqual(['a', 'b']);
  });
});
