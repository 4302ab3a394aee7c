import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IndexRow } from './index-arrow';
import { INDEX_SCHEMA_VERSION } from './index-version';
import { LanceIndex } from './lance.index';

const row = (n: number, terms = `note n${n}`): IndexRow => ({
  chunkId: String(n),
  memoryId: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  scope: 'owner',
  agentId: 'default',
  terms,
});
const version = { schema: INDEX_SCHEMA_VERSION, tokenizer: 'test', embedding: null };
const keyword = (index: LanceIndex, term: string) => index.keyword('owner', 'default', [term], 5).map((h) => h.chunkId);
const filesHolding = (dir: string, marker: string) =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && readFileSync(join(e.parentPath, e.name)).includes(marker))
    .map((e) => e.name);

describe('keyword-only builds (a terms file, no LanceDB)', () => {
  let dir: string;
  let index: LanceIndex;
  const reopen = async () => {
    await index.onApplicationShutdown();
    index = new LanceIndex();
    await index.open(dir);
    await index.load();
  };
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'nestclaw-terms-'));
    index = new LanceIndex();
    await index.open(dir);
    const build = await index.startBuild(null);
    await build.add([1, 2, 3].map((n) => row(n)));
    await build.finish(version);
  });
  afterEach(async () => {
    await index.onApplicationShutdown();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is a terms file, searchable at once and after a restart', async () => {
    expect(readdirSync(dir).filter((f) => f.endsWith('.lance'))).toEqual([]);
    expect(index.matches(version)).toBe(true);
    await index.apply([row(4).memoryId], [row(4)]);
    expect(keyword(index, 'n4')).toEqual(['4']);
    await reopen();
    expect(await index.rowCount()).toBe(4);
    expect(keyword(index, 'n2')).toEqual(['2']);
    expect(await index.vector('owner', 'default', [1, 2, 3], 5)).toEqual([]);
  });

  it('erases a removed memory from the file at once; a replaced one reads back as replaced', async () => {
    await index.apply([row(2).memoryId], [row(2, 'qzxerasemarker door code')]);
    await index.apply([row(3).memoryId], [row(3, 'changed text')]);
    expect(filesHolding(dir, 'qzxerasemarker')).not.toEqual([]);
    await index.apply([row(2).memoryId], []);
    expect(filesHolding(dir, 'qzxerasemarker')).toEqual([]);
    await reopen();
    expect(await index.rowCount()).toBe(2);
    expect(keyword(index, 'qzxerasemarker')).toEqual([]);
    expect(keyword(index, 'n3')).toEqual([]);
    expect(keyword(index, 'changed')).toEqual(['3']);
  });

  it('skips a write torn by a crash and keeps appending after it', async () => {
    const file = readdirSync(dir).find((f) => f.endsWith('.terms'))!;
    appendFileSync(join(dir, file), '{"d":["x"],"r":[["9","x","owner"');
    await reopen();
    await index.apply([row(5).memoryId], [row(5)]);
    await reopen();
    expect(keyword(index, 'n5')).toEqual(['5']);
    expect(await index.rowCount()).toBe(4);
  });

  it('replaces a build of the other kind and deletes its files', async () => {
    const hybrid = await index.startBuild(3);
    await hybrid.add([{ ...row(7), vector: [1, 0, 0] }]);
    await hybrid.finish({ ...version, embedding: 'e' });
    expect(readdirSync(dir).filter((f) => f.endsWith('.terms'))).toEqual([]);
    expect(keyword(index, 'n7')).toEqual(['7']);
    const keywordOnly = await index.startBuild(null);
    await keywordOnly.add([row(8)]);
    await keywordOnly.finish(version);
    expect(readdirSync(dir).filter((f) => f.endsWith('.lance'))).toEqual([]);
    await reopen();
    expect(keyword(index, 'n8')).toEqual(['8']);
    expect(keyword(index, 'n7')).toEqual([]);
  });
});
