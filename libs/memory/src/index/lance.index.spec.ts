import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IndexRow } from './index-arrow';
import { INDEX_SCHEMA_VERSION } from './index-version';
import { LanceIndex } from './lance.index';

const row = (n: number): IndexRow => ({
  chunkId: String(n),
  memoryId: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  scope: 'owner',
  agentId: 'default',
  terms: `note n${n}`,
  text: `note number ${n}`,
  source: 'api',
  sourceKey: null,
  createdAt: 1_700_000_000_000 + n,
  superseded: false,
});
const version = { schema: INDEX_SCHEMA_VERSION, tokenizer: 'test', embedding: 'none' };
const ids = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => String(from + i));

describe('LanceIndex (real LanceDB in a temporary directory)', () => {
  let dir: string;
  let index: LanceIndex;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'nestclaw-lance-'));
    index = new LanceIndex();
    await index.open(dir);
    const build = await index.startBuild(null);
    await build.add(ids(1, 10).map((id) => row(Number(id))));
    await build.finish(version);
  });
  afterEach(async () => {
    await index.onApplicationShutdown();
    rmSync(dir, { recursive: true, force: true });
  });

  it('finds every row by chunk id, written before or after the optimize pass that replaces the connection', async () => {
    // One write per worker pass, as under a chat load: 60 writes cross the 50-write optimize (and the connection swap).
    for (let n = 11; n <= 70; n++) await index.apply([row(n).memoryId], [row(n)]);
    const found = await index.lookup(ids(1, 70));
    expect(found.map((r) => r.chunkId).sort((a, b) => Number(a) - Number(b))).toEqual(ids(1, 70));
    expect(found.find((r) => r.chunkId === '65')?.text).toBe('note number 65');
    expect(index.keyword('owner', 'default', ['n42'], 5).map((h) => h.chunkId)).toEqual(['42']);
  });

  it('drops a removed memory from lookups and keyword search, pending or folded in', async () => {
    for (let n = 11; n <= 55; n++) await index.apply([row(n).memoryId], [row(n)]);
    await index.apply([row(20).memoryId, row(54).memoryId], []);
    expect((await index.lookup(['20', '54', '21'])).map((r) => r.chunkId)).toEqual(['21']);
    expect(index.keyword('owner', 'default', ['n54'], 5)).toEqual([]);
  });

  it('serves rows written after the last optimize when reopened (they are outside the B-tree until the next pass)', async () => {
    for (let n = 11; n <= 15; n++) await index.apply([row(n).memoryId], [row(n)]);
    await index.onApplicationShutdown();
    index = new LanceIndex();
    await index.open(dir);
    expect((await index.lookup(['3', '14'])).map((r) => r.chunkId).sort()).toEqual(['14', '3']);
    await index.optimize();
    expect((await index.lookup(['3', '14'])).map((r) => r.chunkId).sort()).toEqual(['14', '3']);
  });
});
