import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'pg';
import { stringify } from 'yaml';
import { startHarness, Harness } from '../../support/gateway-harness';
import { realPostgresAvailable } from '../../support/test-database';
import { indexed, NO_REPLAYED_ANSWERS, searchable, turnMemoryPrompt, waitFor } from './memory-spec.support';

type Status = {
  mode: string;
  index: { ready: boolean; current: boolean; version: string | null };
  lastFallback: { reason: string } | null;
};

const status = async (h: Harness) => (await (await h.api('/v1/memory/status')).json()) as Status;
const chat = (h: Harness, message: string) => turnMemoryPrompt(h.llm, () => h.api('/v1/chat', { json: { message } }));
/** Runs `between` while the gateway is down, then starts it again (the harness restarts in-process). */
const restartWith = async (h: Harness, between: () => Promise<void> | void) => {
  const close = h.gateway.close.bind(h.gateway);
  h.gateway.close = async () => {
    await close();
    await between();
  };
  await h.restart();
};

describe('memory survives crashes, lost indexes and model changes', () => {
  let h: Harness;
  beforeAll(async () => {
    // A recall budget the shared CI machine meets; the embedding share stays at memory.embedding_timeout (200 ms).
    h = await startHarness({ config: { memory: { recall: { timeout: 1000 } }, providers: NO_REPLAYED_ANSWERS } });
  });
  afterAll(() => h.stop());

  (realPostgresAvailable() ? it : it.skip)(
    'drains changes committed while no index worker ran (a crash between commit and index update)',
    async () => {
      await indexed(h);
      await restartWith(h, async () => {
        // Exactly what POST /v1/memory commits, written while the process is down: truth rows + queue entry, no index row.
        const pool = new Pool({ connectionString: h.db.url, max: 1 });
        await pool.query(
          `WITH m AS (INSERT INTO memories (id, scope, agent_id, content, source, content_hash)
                    VALUES (gen_random_uuid(), 'owner', 'default', 'The backup tapes are stored in vault 7', 'api', 'h') RETURNING id),
              c AS (INSERT INTO memory_chunks (memory_id, seq, text, token_count, content_hash)
                    SELECT id, 0, 'The backup tapes are stored in vault 7', 9, 'h' FROM m)
         INSERT INTO index_queue (memory_id, op) SELECT id, 'upsert' FROM m`,
        );
        await pool.end();
      });
      await indexed(h);
      expect(await chat(h, 'where are the backup tapes')).toContain('vault 7');
    },
  );

  it('rebuilds the index from Postgres when its directory is deleted', async () => {
    await h.api('/v1/memory', { json: { content: '周三下午三点和财务部开预算会议' } });
    await indexed(h);
    await restartWith(h, () => rmSync(join(h.home, 'memory-index'), { recursive: true, force: true }));
    await waitFor(async () => (await status(h)).index.current);
    await indexed(h);
    expect(await chat(h, '预算会议是什么时候')).toContain('财务部');
  });

  const config = (model: string) =>
    stringify({
      models: {
        fake: { provider: 'openai-compatible', base_url: h.llm.url, api_key: 'sk-test', model: 'fake-model' },
        emb: { provider: 'openai-compatible', base_url: h.llm.url, api_key: 'sk-test', model, kind: 'embedding' },
      },
      memory: { recall: { timeout: 1000 } },
    });

  it('rebuilds with vectors when an embedding model is configured, and again when it changes', async () => {
    await restartWith(h, () => writeFileSync(join(h.home, 'config.yaml'), config('embed-a')));
    await waitFor(async () => (await status(h)).index.current);
    expect((await status(h)).index.version).toContain('emb:embed-a');
    expect((await status(h)).mode).toBe('hybrid');
    await restartWith(h, () => writeFileSync(join(h.home, 'config.yaml'), config('embed-b')));
    await waitFor(async () => (await status(h)).index.current);
    expect((await status(h)).index.version).toContain('emb:embed-b');
    expect(h.llm.embeddingRequests.some((r) => r.model === 'embed-b')).toBe(true);
  });

  it.each(['error', 'hang'] as const)('keeps turns recalling by keyword when the embedding server fails (%s)', async (fault) => {
    if ((await status(h)).mode !== 'hybrid') await restartWith(h, () => writeFileSync(join(h.home, 'config.yaml'), config('embed-a')));
    await waitFor(async () => (await status(h)).index.current);
    expect((await status(h)).mode).toBe('hybrid');
    await h.api('/v1/memory', { json: { content: `The release train leaves every second Thursday (${fault})` } });
    await searchable(h, 'release train', `(${fault})`);
    h.llm.embeddingFault = fault;
    try {
      const started = Date.now();
      const prompt = await chat(h, 'when does the release train leave? ' + fault);
      // Generous: a hang must cost the embedding budget (200 ms) within the recall budget, not the embedding client's timeout.
      expect(Date.now() - started).toBeLessThan(3000);
      expect({ prompt, why: (await status(h)).lastFallback }).toMatchObject({ prompt: expect.stringContaining('second Thursday') });
      expect((await status(h)).lastFallback?.reason).toMatch(/keyword-only/);
    } finally {
      h.llm.embeddingFault = undefined;
    }
  });
});

describe('memory on the embedded database', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ embedded: true, config: { providers: NO_REPLAYED_ANSWERS } });
  }, 120_000);
  afterAll(() => h.stop());

  it('recalls a memory stored through the API in a later turn', async () => {
    expect((await h.api('/v1/memory', { json: { content: '我的护照号码放在保险箱第二层' } })).status).toBe(201);
    await indexed(h, 30_000);
    expect(await chat(h, '护照放在哪里')).toContain('保险箱');
  });
});
