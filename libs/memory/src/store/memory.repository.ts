import { Injectable } from '@nestjs/common';
import type { PoolClient } from 'pg';
import { mapDatabaseError, DatabaseService } from '@nestclaw/db';
import { HydratedChunk, IndexableChunk, MemoryRecord, NewMemory } from './memory.types';

const MEMORY_COLUMNS = `id, scope, agent_id AS "agentId", content, source, source_key AS "sourceKey", metadata, supersedes,
  superseded_at IS NOT NULL AS superseded, created_at AS "createdAt", updated_at AS "updatedAt", deleted_at AS "deletedAt"`;

/** What an index row holds (IndexableChunk), from memory_chunks c JOIN memories m. */
const INDEXABLE_COLUMNS = `c.id::text AS "chunkId", c.memory_id AS "memoryId", m.scope, m.agent_id AS "agentId", c.text,
  c.content_hash AS "contentHash"`;

/**
 * Recall candidates read from the truth, by chunk id (a `bigint[]` parameter), for one person and agent: a
 * deleted memory is dropped, a superseded one marked. Shared by `hydrate` and the turn's opening statement,
 * which reads a new turn's candidates without a round trip of their own (libs/agent turn.repository.ts).
 * Driven from the id list: the chunks by primary key, then each one's memory by primary key. The memory is a
 * LATERAL subquery kept apart (OFFSET 0), so a planner without statistics (a young database) cannot turn it
 * around into "every memory of this person × a scan of the chunks", which made recall grow with the corpus
 * (5.6 ms at 300 memories).
 */
export function recalledChunksSql(chunkIds: string, scope: string, agentId: string): string {
  return `SELECT c.id::text AS "chunkId", c.memory_id AS "memoryId", m.scope, m.agent_id AS "agentId", c.text,
              c.content_hash AS "contentHash", m.source, m.source_key AS "sourceKey",
              m.superseded_at IS NOT NULL AS superseded, m.created_at AS "createdAt"
         FROM memory_chunks c
        CROSS JOIN LATERAL (SELECT * FROM memories WHERE id = c.memory_id OFFSET 0) m
        WHERE c.id = ANY(${chunkIds}::bigint[]) AND m.deleted_at IS NULL AND m.scope = ${scope} AND m.agent_id = ${agentId}`;
}

/**
 * The CTEs of an erase: `d` the deleted memories, `c` their chunks, `e` their cached vectors unless
 * another memory's chunk has the same text. One statement sees one snapshot, so `d`'s own chunks are
 * still visible to the check and are excluded by memory id.
 */
const ERASE_MEMORIES = (where: string) => `WITH d AS (DELETE FROM memories WHERE ${where} RETURNING id),
  c AS (DELETE FROM memory_chunks WHERE memory_id IN (SELECT id FROM d) RETURNING content_hash),
  e AS (DELETE FROM memory_embeddings v WHERE v.content_hash IN (SELECT content_hash FROM c)
          AND NOT EXISTS (SELECT 1 FROM memory_chunks o WHERE o.content_hash = v.content_hash AND o.memory_id NOT IN (SELECT id FROM d)))`;

const chunkArrays = (m: NewMemory) => [
  m.chunks.map((_, i) => i),
  m.chunks.map((c) => c.text),
  m.chunks.map((c) => c.tokenCount),
  m.chunks.map((c) => c.contentHash),
];

/**
 * The truth tables of memory. Every change writes its `index_queue` entry in the same statement or
 * transaction, so the derived index can never miss a committed change, only lag behind it.
 */
@Injectable()
export class MemoryRepository {
  constructor(private readonly db: DatabaseService) {}

  /** One statement: the memory, its chunks, the superseded mark and the queue entry commit together. */
  async insert(m: NewMemory): Promise<void> {
    await this.insertIn(this.db.pool, m);
  }

  /**
   * Creates or replaces the memory with this source key (a workspace file, a turn). Unchanged content
   * is left alone, so re-scanning files costs nothing. Returns false when nothing changed.
   */
  async replaceBySourceKey(m: NewMemory & { sourceKey: string }): Promise<boolean> {
    return this.transaction(async (client) => {
      const { rows } = await client.query<{ id: string; content_hash: string; deleted: boolean }>(
        `SELECT id, content_hash, deleted_at IS NOT NULL AS deleted FROM memories WHERE source_key = $1 FOR UPDATE`,
        [m.sourceKey],
      );
      const existing = rows[0];
      if (!existing) {
        await this.insertIn(client, m);
        return true;
      }
      if (existing.content_hash === m.contentHash && !existing.deleted) return false;
      await client.query(`DELETE FROM memory_chunks WHERE memory_id = $1`, [existing.id]);
      await client.query(
        `WITH u AS (
           UPDATE memories SET content = $2, metadata = $3, content_hash = $4, updated_at = now(), deleted_at = NULL WHERE id = $1 RETURNING id),
         c AS (
           INSERT INTO memory_chunks (memory_id, seq, text, token_count, content_hash)
           SELECT u.id, x.seq, x.text, x.n, x.h FROM u, unnest($5::int[], $6::text[], $7::int[], $8::text[]) AS x(seq, text, n, h))
         INSERT INTO index_queue (memory_id, op) SELECT id, 'upsert' FROM u`,
        [existing.id, m.content, m.metadata, m.contentHash, ...chunkArrays(m)],
      );
      return true;
    });
  }

  /**
   * New memories with a source key, in one statement: each memory, its chunks and its queue entry.
   * A source key already stored is skipped (ON CONFLICT DO NOTHING); returns the keys inserted.
   */
  async insertMany(batch: (NewMemory & { sourceKey: string })[]): Promise<string[]> {
    const chunks = batch.flatMap((m) => m.chunks.map((c, seq) => ({ key: m.sourceKey, seq, ...c })));
    const { rows } = await this.db.query<{ source_key: string }>(
      `WITH m AS (
         INSERT INTO memories (id, scope, agent_id, content, source, source_key, metadata, content_hash)
         SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::jsonb[], $8::text[])
         ON CONFLICT (source_key) DO NOTHING
         RETURNING id, source_key),
       c AS (
         INSERT INTO memory_chunks (memory_id, seq, text, token_count, content_hash)
         SELECT m.id, x.seq, x.text, x.n, x.h
           FROM unnest($9::text[], $10::int[], $11::text[], $12::int[], $13::text[]) AS x(source_key, seq, text, n, h)
           JOIN m ON m.source_key = x.source_key),
       q AS (
         INSERT INTO index_queue (memory_id, op) SELECT id, 'upsert' FROM m)
       SELECT source_key FROM m`,
      [
        batch.map((m) => m.id),
        batch.map((m) => m.scope),
        batch.map((m) => m.agentId),
        batch.map((m) => m.content),
        batch.map((m) => m.source),
        batch.map((m) => m.sourceKey),
        batch.map((m) => JSON.stringify(m.metadata)),
        batch.map((m) => m.contentHash),
        chunks.map((c) => c.key),
        chunks.map((c) => c.seq),
        chunks.map((c) => c.text),
        chunks.map((c) => c.tokenCount),
        chunks.map((c) => c.contentHash),
      ],
      { name: 'nestclaw_remember_memories' },
    );
    return rows.map((r) => r.source_key);
  }

  /**
   * Like DatabaseService.transaction, but the checked-out client has an error listener: this runs in
   * the background (finished turns, file scans), where a connection dropped mid-transaction must
   * end as a rejected promise, never as an uncaught 'error' event.
   */
  private async transaction<T>(fn: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await this.db.pool.connect();
    const ignore = () => undefined;
    client.on('error', ignore);
    let failed = false;
    try {
      await client.query('BEGIN');
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (e) {
      failed = true;
      await client.query('ROLLBACK').catch(() => undefined);
      throw mapDatabaseError(e);
    } finally {
      client.off('error', ignore);
      // A client that failed mid-transaction may hold a broken connection: drop it from the pool.
      client.release(failed);
    }
  }

  private async insertIn(client: Pick<PoolClient, 'query'>, m: NewMemory): Promise<void> {
    await client.query(
      `WITH m AS (
         INSERT INTO memories (id, scope, agent_id, content, source, source_key, metadata, supersedes, content_hash)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id),
       c AS (
         INSERT INTO memory_chunks (memory_id, seq, text, token_count, content_hash)
         SELECT m.id, x.seq, x.text, x.n, x.h FROM m, unnest($10::int[], $11::text[], $12::int[], $13::text[]) AS x(seq, text, n, h)),
       s AS (
         UPDATE memories SET superseded_at = now() WHERE $8::uuid IS NOT NULL AND id = $8::uuid AND scope = $2 AND agent_id = $3 RETURNING id)
       -- The superseded memory is queued too: its index rows carry the superseded mark.
       INSERT INTO index_queue (memory_id, op) SELECT id, 'upsert' FROM m UNION ALL SELECT id, 'upsert' FROM s`,
      [
        m.id,
        m.scope,
        m.agentId,
        m.content,
        m.source,
        m.sourceKey ?? null,
        m.metadata,
        m.supersedes ?? null,
        m.contentHash,
        ...chunkArrays(m),
      ],
    );
  }

  /**
   * Forget: the memory, its chunks and the cached vectors of text no other chunk has are deleted,
   * and the queue entry (which makes the worker erase the index rows) is written, in one statement.
   * `scope` undefined: any person's (the owner's right). The vector check scans memory_chunks by
   * content hash (no index; a forget is rare, a chunk write is not).
   */
  async erase(id: string, scope: string | undefined): Promise<boolean> {
    const { rowCount } = await this.db.pool.query(
      `${ERASE_MEMORIES('id = $1 AND ($2::text IS NULL OR scope = $2)')}
       INSERT INTO index_queue (memory_id, op) SELECT id, 'delete' FROM d`,
      [id, scope ?? null],
    );
    return (rowCount ?? 0) > 0;
  }

  /** Workspace files that are gone: their memories are erased like a forget. */
  async eraseBySourceKeys(keys: string[]): Promise<number> {
    if (keys.length === 0) return 0;
    const { rowCount } = await this.db.pool.query(
      `${ERASE_MEMORIES('source_key = ANY($1::text[])')}
       INSERT INTO index_queue (memory_id, op) SELECT id, 'delete' FROM d`,
      [keys],
    );
    return rowCount ?? 0;
  }

  async findById(id: string): Promise<MemoryRecord | undefined> {
    const { rows } = await this.db.pool.query<MemoryRecord>(`SELECT ${MEMORY_COLUMNS} FROM memories WHERE id = $1`, [id]);
    return rows[0];
  }

  /**
   * One person's and agent's memories, newest first, `limit` after the memory `before` (keyset on
   * created_at then id, so equal timestamps neither repeat nor vanish between pages; the
   * (scope, agent_id, created_at) index serves it). A `before` that is not theirs yields nothing.
   */
  async findRecentOf(scope: string, agentId: string, limit: number, before: string | undefined): Promise<MemoryRecord[]> {
    const { rows } = await this.db.pool.query<MemoryRecord>(
      `SELECT ${MEMORY_COLUMNS} FROM memories
        WHERE scope = $1 AND agent_id = $2 AND deleted_at IS NULL
          AND ($4::uuid IS NULL OR (created_at, id) < (SELECT created_at, id FROM memories WHERE id = $4 AND scope = $1 AND agent_id = $2))
        ORDER BY created_at DESC, id DESC
        LIMIT $3`,
      [scope, agentId, limit, before ?? null],
    );
    return rows;
  }

  /** Live source keys under a prefix (`file:<agent>:`), for noticing deleted files. */
  async liveSourceKeys(prefix: string): Promise<string[]> {
    const { rows } = await this.db.pool.query<{ k: string }>(
      `SELECT source_key AS k FROM memories WHERE source_key LIKE $1 || '%' AND deleted_at IS NULL`,
      [prefix],
    );
    return rows.map((r) => r.k);
  }

  /**
   * Recall candidates (from the index, or from the Postgres keyword search while there is none) read from the truth:
   * deleted memories and other people's are dropped here whatever the index still says, so `forget` is immediate.
   */
  async hydrate(chunkIds: string[], scope: string, agentId: string): Promise<HydratedChunk[]> {
    if (chunkIds.length === 0) return [];
    const { rows } = await this.db.pool.query<HydratedChunk>(recalledChunksSql('$1', '$2', '$3'), [chunkIds, scope, agentId]);
    return rows;
  }

  /**
   * Keyword search straight on Postgres, for when the index is missing or being rebuilt from
   * nothing: slower, but recall keeps working. Ranks by how many query terms a chunk contains.
   */
  async keywordFallback(scope: string, agentId: string, terms: string[], limit: number): Promise<string[]> {
    if (terms.length === 0) return [];
    const patterns = terms.slice(0, 16).map((t) => `%${t.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    const { rows } = await this.db.pool.query<{ id: string }>(
      `SELECT c.id::text AS id
         FROM memory_chunks c JOIN memories m ON m.id = c.memory_id
        WHERE m.scope = $1 AND m.agent_id = $2 AND m.deleted_at IS NULL AND lower(c.text) LIKE ANY($3::text[])
        ORDER BY (SELECT count(*) FROM unnest($3::text[]) p WHERE lower(c.text) LIKE p) DESC, m.created_at DESC
        LIMIT $4`,
      [scope, agentId, patterns, limit],
    );
    return rows.map((r) => r.id);
  }

  /** Live chunks of these memories (the worker's view of "what the index should hold"). */
  async chunksOf(memoryIds: string[]): Promise<IndexableChunk[]> {
    if (memoryIds.length === 0) return [];
    const { rows } = await this.db.pool.query<IndexableChunk>(
      `SELECT ${INDEXABLE_COLUMNS}
         FROM memory_chunks c JOIN memories m ON m.id = c.memory_id
        WHERE c.memory_id = ANY($1::uuid[]) AND m.deleted_at IS NULL`,
      [memoryIds],
    );
    return rows;
  }

  /** A page of every live chunk in id order, for a rebuild. */
  async liveChunksAfter(afterId: string, limit: number): Promise<IndexableChunk[]> {
    const { rows } = await this.db.pool.query<IndexableChunk>(
      `SELECT ${INDEXABLE_COLUMNS}
         FROM memory_chunks c JOIN memories m ON m.id = c.memory_id
        WHERE c.id > $1::bigint AND m.deleted_at IS NULL ORDER BY c.id LIMIT $2`,
      [afterId, limit],
    );
    return rows;
  }

  /** One person's live memories and chunks, every agent (the status a non-admin token may see). */
  async countsOf(scope: string): Promise<{ memories: number; chunks: number }> {
    const { rows } = await this.db.pool.query<{ memories: string; chunks: string }>(
      `SELECT count(*) AS memories, coalesce(sum((SELECT count(*) FROM memory_chunks c WHERE c.memory_id = m.id)), 0) AS chunks
         FROM memories m WHERE m.scope = $1 AND m.deleted_at IS NULL`,
      [scope],
    );
    return { memories: Number(rows[0].memories), chunks: Number(rows[0].chunks) };
  }

  async counts(): Promise<{ memories: number; chunks: number; deleted: number }> {
    const { rows } = await this.db.pool.query<{ memories: string; deleted: string; chunks: string }>(
      `SELECT (SELECT count(*) FROM memories WHERE deleted_at IS NULL) AS memories,
              (SELECT count(*) FROM memories WHERE deleted_at IS NOT NULL) AS deleted,
              (SELECT count(*) FROM memory_chunks c JOIN memories m ON m.id = c.memory_id WHERE m.deleted_at IS NULL) AS chunks`,
    );
    return { memories: Number(rows[0].memories), chunks: Number(rows[0].chunks), deleted: Number(rows[0].deleted) };
  }
}
