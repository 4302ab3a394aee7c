import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expectedVersion } from './index-version';
import type { MemorySearchChunk, MemorySearchStore } from './memory-search-store.port';
import { MemorySearchStores } from './memory-search-stores.registry';
import { PluginStoreIndex } from './plugin-store.index';

/** A plugin store kept in a map, the shape a real plugin gives. */
function mapStore(): MemorySearchStore & { chunks: Map<string, MemorySearchChunk>; resets: number } {
  const chunks = new Map<string, MemorySearchChunk>();
  return {
    chunks,
    resets: 0,
    async upsert(list) {
      const ids = new Set(list.map((c) => c.memoryId));
      for (const [k, c] of chunks) if (ids.has(c.memoryId)) chunks.delete(k);
      for (const c of list) chunks.set(c.chunkId, c);
    },
    async remove(ids) {
      for (const [k, c] of chunks) if (ids.includes(c.memoryId)) chunks.delete(k);
    },
    async search({ query }) {
      return [...chunks.values()].filter((c) => c.text.includes(query)).map((c) => ({ chunkId: c.chunkId, memoryId: c.memoryId }));
    },
    async count() {
      return chunks.size;
    },
    async reset() {
      this.resets++;
      chunks.clear();
    },
  };
}

const row = (chunkId: string, memoryId: string, text: string) => ({
  chunkId,
  memoryId,
  scope: 'owner',
  agentId: 'default',
  terms: '',
  text,
});

describe('a plugin store as the derived index', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'nestclaw-plugin-store-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const opened = async (store: MemorySearchStore, version = '1.0.0') => {
    const stores = new MemorySearchStores();
    stores.register('p', version, { id: 'vec', create: () => store });
    const index = new PluginStoreIndex(stores);
    return { index, found: await index.open(dir, 'vec', {}) };
  };
  const fill = async (index: PluginStoreIndex) => {
    const build = await index.startBuild(null);
    await build.add([row('1', 'm1', '我的猫叫小白')]);
    await build.finish(expectedVersion(undefined));
  };

  it('is unavailable, with the reason, when no plugin registered the selected store', async () => {
    const index = new PluginStoreIndex(new MemorySearchStores());
    expect(await index.open(dir, 'vec', {})).toBe(false);
    expect(index.ready).toBe(false);
    expect(index.unavailable).toMatch(/no loaded trusted plugin registered a memory store "vec"/);
  });

  it('asks for a fill when it has no record, and serves after one (reset first)', async () => {
    const store = mapStore();
    const { index, found } = await opened(store);
    expect(found).toBe(false);
    await fill(index);
    expect(store.resets).toBe(1);
    expect(index.ready).toBe(true);
    expect(index.matches(expectedVersion(undefined))).toBe(true);
    expect(await index.search('owner', 'default', '小白', 5, 1000)).toEqual([{ chunkId: '1', memoryId: 'm1' }]);
  });

  it('keeps serving across a restart, but refills when the store is emptied or the plugin version changed', async () => {
    const store = mapStore();
    await fill((await opened(store)).index);
    expect((await opened(store)).found).toBe(true);
    expect((await opened(store, '2.0.0')).found).toBe(false);
    store.chunks.clear();
    expect((await opened(store)).found).toBe(false);
  });

  it('refills when its record is unreadable, instead of failing the start', async () => {
    const store = mapStore();
    await fill((await opened(store)).index);
    writeFileSync(join(dir, 'plugin-vec', 'store-version.json'), '{ not json');
    expect((await opened(store)).found).toBe(false);
  });

  it('applies a change as remove for memories left with no rows and upsert for the rest', async () => {
    const store = mapStore();
    const { index } = await opened(store);
    await fill(index);
    await index.apply(['m1', 'm2'], [row('7', 'm2', 'new')]);
    expect([...store.chunks.keys()]).toEqual(['7']);
  });

  it('drops hits without a numeric chunk id or a memory id, and fails a search that outruns its time', async () => {
    const store = mapStore();
    const { index } = await opened(store);
    await fill(index);
    store.search = async () => [
      { chunkId: 'x', memoryId: 'm' },
      { chunkId: '2', memoryId: '' },
      { chunkId: '3', memoryId: 'm3' },
    ];
    expect(await index.search('owner', 'default', 'q', 5, 1000)).toEqual([{ chunkId: '3', memoryId: 'm3' }]);
    let aborted = false;
    store.search = ({ signal }) =>
      new Promise((_, reject) => signal.addEventListener('abort', () => ((aborted = true), reject(new Error('x')))));
    await expect(index.search('owner', 'default', 'q', 5, 20)).rejects.toThrow("the memory store's search took longer than 20 ms");
    expect(aborted).toBe(true);
  });
});
