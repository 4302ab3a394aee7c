import { Injectable } from '@nestjs/common';
import { DatabaseService } from '@nestclaw/db';
import type { ChatResponse } from '../model-provider.port';

export interface StoredAnswerRow {
  key: string;
  model_name: string;
  response: ChatResponse;
}

/** `llm_idempotency`: answers already paid for, by key, each expiring after its TTL. */
@Injectable()
export class IdempotencyRepository {
  constructor(private readonly db: DatabaseService) {}

  /** Keys with a live answer and when each expires (epoch ms), at most `limit`. */
  async liveKeys(limit: number): Promise<{ key: string; exp: number }[]> {
    const { rows } = await this.db.query<{ key: string; exp: number }>(
      `SELECT key, (extract(epoch FROM expires_at) * 1000)::float8 AS exp FROM llm_idempotency WHERE expires_at > now() LIMIT $1`,
      [limit],
    );
    return rows;
  }

  async findLive(keys: string[]): Promise<StoredAnswerRow[]> {
    const { rows } = await this.db.query<StoredAnswerRow>(
      `SELECT key, model_name, response FROM llm_idempotency WHERE key = ANY($1::text[]) AND expires_at > now()`,
      [keys],
    );
    return rows;
  }

  /** Inserts or replaces a batch of answers in one statement. */
  async saveMany(batch: { key: string; modelName: string; response: ChatResponse; ttlMs: number }[]): Promise<void> {
    await this.db.query(
      `INSERT INTO llm_idempotency (key, model_name, response, expires_at)
       SELECT x.key, x.model_name, x.response, now() + x.ttl * interval '1 millisecond'
       FROM unnest($1::text[], $2::text[], $3::jsonb[], $4::bigint[]) AS x(key, model_name, response, ttl)
       ON CONFLICT (key) DO UPDATE SET model_name = EXCLUDED.model_name, response = EXCLUDED.response,
         created_at = now(), expires_at = EXCLUDED.expires_at`,
      [
        batch.map((b) => b.key),
        batch.map((b) => b.modelName),
        batch.map((b) => JSON.stringify(b.response)),
        batch.map((b) => Math.round(b.ttlMs)),
      ],
    );
  }

  async purgeExpired(): Promise<void> {
    await this.db.query(`DELETE FROM llm_idempotency WHERE expires_at < now()`);
  }
}
