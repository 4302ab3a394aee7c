import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { eventually } from '../../support/eventually';
import { startHarness, Harness } from '../../support/gateway-harness';
import { indexed, NO_REPLAYED_ANSWERS, turnMemoryPrompt } from './memory-spec.support';

/** Files under `dir` whose bytes contain `marker`. */
function filesHolding(dir: string, marker: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && readFileSync(join(e.parentPath, e.name)).includes(marker))
    .map((e) => join(e.parentPath, e.name));
}

/** Issue 22: `forget` erases a memory's text from Postgres, the embedding cache and the index files. */
describe('forgetting a memory erases it', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      config: { memory: { recall: { timeout: 5000 } }, providers: NO_REPLAYED_ANSWERS },
      // An embedding model on the same fake server, so the text also has cached vectors.
      beforeStart: (home) => {
        const file = join(home, 'config.yaml');
        const config = parse(readFileSync(file, 'utf8')) as { models: Record<string, Record<string, unknown>> };
        config.models.emb = { ...config.models.fake, model: 'embed-a', kind: 'embedding' };
        writeFileSync(file, stringify(config));
      },
    });
    await eventually(
      'the hybrid index',
      async () => {
        const s = (await (await h.api('/v1/memory/status')).json()) as { mode: string; index: { current: boolean } };
        return s.mode === 'hybrid' && s.index.current;
      },
      30_000,
    );
  }, 60_000);
  afterAll(() => h.stop());

  /** What Postgres still holds of `marker`: memories, chunks, and cached vectors of the given chunk hashes. */
  const leftovers = async (marker: string, hashes: string[]) => ({
    memories: (await h.query(`SELECT id FROM memories WHERE content LIKE '%' || $1 || '%'`, [marker])).length,
    chunks: (await h.query(`SELECT id FROM memory_chunks WHERE text LIKE '%' || $1 || '%'`, [marker])).length,
    vectors: (await h.query(`SELECT model FROM memory_embeddings WHERE content_hash = ANY($1::text[])`, [hashes])).length,
  });

  it('leaves no row, no recall hit and no byte in the index directory with the text (DELETE /v1/memory/:id)', async () => {
    const marker = `qzx${randomBytes(6).toString('hex')}marker`;
    const stored = await h.api('/v1/memory', { json: { content: `The alarm code is ${marker}, 门禁密码 ${marker}` } });
    const { id } = (await stored.json()) as { id: string };
    await indexed(h);
    expect(await turnMemoryPrompt(h.llm, () => h.api('/v1/chat', { json: { message: 'what is the alarm code?' } }))).toContain(marker);
    const hashes = (await h.query<{ h: string }>(`SELECT content_hash AS h FROM memory_chunks WHERE memory_id = $1`, [id])).map((r) => r.h);
    const dir = join(h.home, 'memory-index');
    // The test could fail: before the forget, every place holds it.
    expect(await leftovers(marker, hashes)).toEqual({ memories: 1, chunks: 1, vectors: 1 });
    expect(filesHolding(dir, marker)).not.toEqual([]);

    expect((await h.api(`/v1/memory/${id}`, { method: 'DELETE' })).status).toBe(200);

    expect(await leftovers(marker, hashes)).toEqual({ memories: 0, chunks: 0, vectors: 0 });
    // Vector search always answers with its nearest rows (an earlier turn's transcript may be one): none may hold the text.
    const search = (await (await h.api(`/v1/memory/search?q=${marker}`)).json()) as { results: { content: string }[] };
    expect(search.results.filter((r) => r.content.includes(marker))).toEqual([]);
    // (Not naming the marker: the finished turn is remembered too.)
    expect(await turnMemoryPrompt(h.llm, () => h.api('/v1/chat', { json: { message: 'what is the alarm code?' } }))).not.toContain(marker);
    // The worker erases the index rows, then a cleanup removes the old files once their grace (10 s) has passed.
    await eventually('the index files without the marker', () => filesHolding(dir, marker).length === 0, 30_000);
  }, 60_000);

  it('erases through the memory_forget tool too', async () => {
    const marker = `qzx${randomBytes(6).toString('hex')}tool`;
    const { id } = (await (await h.api('/v1/memory', { json: { content: `Locker combination ${marker}` } })).json()) as { id: string };
    await indexed(h);
    const res = await h.api('/v1/chat', { json: { message: `[tool:memory_forget {"id":"${id}"}]` } });
    expect(res.status).toBe(200);
    expect(await leftovers(marker, [])).toMatchObject({ memories: 0, chunks: 0 });
    await eventually('the index files without the marker', () => filesHolding(join(h.home, 'memory-index'), marker).length === 0, 30_000);
  }, 60_000);
});
