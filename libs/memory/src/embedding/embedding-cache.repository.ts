import { Injectable } from '@nestjs/common';
import { DatabaseService } from '@nestclaw/db';

/** Vectors by (model, content hash): what makes a reindex or a re-ingest of unchanged text free. */
@Injectable()
export class EmbeddingCacheRepository {
  constructor(private readonly db: DatabaseService) {}

  async find(model: string, hashes: string[]): Promise<Map<string, number[]>> {
    if (hashes.length === 0) return new Map();
    const { rows } = await this.db.pool.query<{ h: string; v: number[] }>(
      `SELECT content_hash AS h, vector AS v FROM memory_embeddings WHERE model = $1 AND content_hash = ANY($2::text[])`,
      [model, [...new Set(hashes)]],
    );
    return new Map(rows.map((r) => [r.h, r.v]));
  }

  async save(model: string, entries: { hash: string; vector: number[] }[]): Promise<void> {
    if (entries.length === 0) return;
    await this.db.pool.query(
      `INSERT INTO memory_embeddings (model, content_hash, dims, vector)
       SELECT $1, x.h, $2, string_to_array(x.v, ',')::real[] FROM unnest($3::text[], $4::text[]) AS x(h, v)
       ON CONFLICT DO NOTHING`,
      [model, entries[0].vector.length, entries.map((e) => e.hash), entries.map((e) => e.vector.join(','))],
    );
  }
}
