import { Injectable } from '@nestjs/common';
import { DatabaseService } from '@nestclaw/db';

/** Vectors by (model, content hash): what makes a reindex or a re-ingest of unchanged text free. */
@Injectable()
export class EmbeddingCacheRepository {
  constructor(private readonly db: DatabaseService) {}

  /**
   * Vectors travel in PostgreSQL's binary array format (array_send): parsing `{0.1,…}` text for a
   * page of a reindex cost more CPU than everything else the rebuild does.
   */
  async find(model: string, hashes: string[]): Promise<Map<string, Float32Array>> {
    if (hashes.length === 0) return new Map();
    const { rows } = await this.db.pool.query<{ h: string; v: Buffer }>(
      `SELECT content_hash AS h, array_send(vector) AS v FROM memory_embeddings WHERE model = $1 AND content_hash = ANY($2::text[])`,
      [model, [...new Set(hashes)]],
    );
    return new Map(rows.map((r) => [r.h, decodeRealArray(r.v)]));
  }

  async save(model: string, entries: { hash: string; vector: ArrayLike<number> }[]): Promise<void> {
    if (entries.length === 0) return;
    await this.db.pool.query(
      `INSERT INTO memory_embeddings (model, content_hash, dims, vector)
       SELECT $1, x.h, $2, string_to_array(x.v, ',')::real[] FROM unnest($3::text[], $4::text[]) AS x(h, v)
       ON CONFLICT DO NOTHING`,
      [model, entries[0].vector.length, entries.map((e) => e.hash), entries.map((e) => Array.prototype.join.call(e.vector, ','))],
    );
  }
}

/** array_send of a one-dimensional real[]: ndim, flags, element type, (size, lower bound), then (length, float4) per element, big-endian. */
export function decodeRealArray(buf: Buffer): Float32Array {
  const ndim = buf.readInt32BE(0);
  if (ndim === 0) return new Float32Array(0);
  const n = buf.readInt32BE(12);
  const out = new Float32Array(n);
  let offset = 12 + 8 * ndim;
  for (let i = 0; i < n; i++, offset += 8) out[i] = buf.readFloatBE(offset + 4);
  return out;
}
