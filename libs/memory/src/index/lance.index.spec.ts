import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
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
  vector: [1, n % 7, 0.5],
});
const version = { schema: INDEX_SCHEMA_VERSION, tokenizer: 'test', embedding: 'none' };
const ids = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => String(from + i));

/** Files under `dir` whose bytes contain `marker` (LanceDB stores the terms column uncompressed). */
const filesHolding = (dir: string, marker: string) =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && readFileSync(join(e.parentPath, e.name)).includes(marker))
    .map((e) => e.name);

const keyword = (index: LanceIndex, term: string) => index.keyword('owner', 'default', [term], 5).map((h) => h.chunkId);

describe('LanceIndex (real LanceDB in a temporary directory)', () => {
  let dir: string;
  let index: LanceIndex;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'nestclaw-lance-'));
    index = new LanceIndex();
    await index.open(dir);
    const build = await index.startBuild(3);
    await build.add(ids(1, 10).map((id) => row(Number(id))));
    await build.finish(version);
  });
  afterEach(async () => {
    await index.onApplicationShutdown();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps searching across the optimize pass that replaces its connection', async () => {
    // One write per worker pass, as under a chat load: 60 writes cross the 50-write optimize (and the connection swap).
    for (let n = 11; n <= 70; n++) await index.apply([row(n).memoryId], [row(n)]);
    expect(await index.rowCount()).toBe(70);
    expect(keyword(index, 'n65')).toEqual(['65']);
    const nearest = await index.vector('owner', 'default', [1, 3, 0.5], 70);
    expect(nearest.map((h) => h.chunkId).sort((a, b) => Number(a) - Number(b))).toEqual(ids(1, 70));
    expect(await index.vector('someone-else', 'default', [1, 3, 0.5], 5)).toEqual([]);
  });

  it('drops a removed memory from both searches, before or after an optimize pass', async () => {
    for (let n = 11; n <= 55; n++) await index.apply([row(n).memoryId], [row(n)]);
    await index.apply([row(5).memoryId, row(54).memoryId], []);
    expect(keyword(index, 'n54')).toEqual([]);
    expect(keyword(index, 'n5')).toEqual([]);
    const nearest = (await index.vector('owner', 'default', [1, 5, 0.5], 100)).map((h) => h.chunkId);
    expect(nearest).toHaveLength(53);
    expect(nearest).not.toContain('54');
    expect(nearest).not.toContain('5');
  });

  it('serves rows written after the last optimize pass when reopened', async () => {
    for (let n = 11; n <= 15; n++) await index.apply([row(n).memoryId], [row(n)]);
    await index.onApplicationShutdown();
    index = new LanceIndex();
    await index.open(dir);
    // Opening reads index-version.json only; the first search loads LanceDB and the keyword index.
    expect(index.ready).toBe(true);
    expect(keyword(index, 'n14')).toEqual([]);
    await index.load();
    expect(keyword(index, 'n14')).toEqual(['14']);
    await index.optimize();
    expect(await index.rowCount()).toBe(15);
    expect((await index.vector('owner', 'default', [1, 0, 0.5], 15)).map((h) => h.chunkId)).toContain('14');
  });

  it('erases a removed memory from the files on disk, keeping every other row searchable', async () => {
    const secret = { ...row(500), terms: 'qzxerasemarker door code' };
    for (let n = 11; n <= 40; n++)
      await index.apply([row(n).memoryId], [n === 25 ? { ...secret, chunkId: '25', memoryId: row(25).memoryId } : row(n)]);
    await index.optimize();
    expect(filesHolding(dir, 'qzxerasemarker')).not.toEqual([]);
    await index.apply([row(25).memoryId], []);
    // Shutdown runs the pending cleanup without the grace a running gateway waits for.
    await index.onApplicationShutdown();
    expect(filesHolding(dir, 'qzxerasemarker')).toEqual([]);
    index = new LanceIndex();
    await index.open(dir);
    expect(await index.rowCount()).toBe(39);
    expect(keyword(index, 'n24')).toEqual(['24']);
    expect(keyword(index, 'qzxerasemarker')).toEqual([]);
    expect((await index.vector('owner', 'default', [1, 3, 0.5], 100)).map((h) => h.chunkId)).toHaveLength(39);
  });
});
