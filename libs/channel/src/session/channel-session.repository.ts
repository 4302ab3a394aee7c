import { Injectable } from '@nestjs/common';
import { DatabaseService, mapDatabaseError } from '@nestclaw/db';

const wrap = <T>(p: Promise<T>): Promise<T> =>
  p.catch((e: unknown) => {
    throw mapDatabaseError(e);
  });

/**
 * Which agent session a session key points at now (`channel_sessions`): the key stays the same for a
 * chat, `/new` moves the pointer. Read once per answered message, inside the key's queue, so a
 * message queued behind `/new` lands in the new session.
 */
@Injectable()
export class ChannelSessionRepository {
  constructor(private readonly db: DatabaseService) {}

  /** The session the key points at, created on first use (the key itself names the first session). */
  async current(sessionKey: string): Promise<string> {
    const { rows } = await wrap(
      this.db.pool.query<{ session_id: string }>(
        `INSERT INTO channel_sessions (session_key, session_id) VALUES ($1, $1)
         ON CONFLICT (session_key) DO UPDATE SET session_key = EXCLUDED.session_key RETURNING session_id`,
        [sessionKey],
      ),
    );
    return rows[0].session_id;
  }

  async startNew(sessionKey: string): Promise<string> {
    const id = `${sessionKey}:${Date.now().toString(36)}`;
    await wrap(
      this.db.pool.query(
        `INSERT INTO channel_sessions (session_key, session_id) VALUES ($1, $2)
         ON CONFLICT (session_key) DO UPDATE SET session_id = $2, updated_at = now()`,
        [sessionKey, id],
      ),
    );
    return id;
  }

  /** Tokens and cost so far (for /status); null before the session's first turn. */
  async usage(sessionId: string): Promise<{ inputTokens: number; outputTokens: number; costUsd: number } | null> {
    const { rows } = await wrap(
      this.db.pool.query<{ input_tokens: string; output_tokens: string; cost_usd: string }>(
        `SELECT input_tokens, output_tokens, cost_usd FROM sessions WHERE id = $1`,
        [sessionId],
      ),
    );
    const r = rows[0];
    return r ? { inputTokens: Number(r.input_tokens), outputTokens: Number(r.output_tokens), costUsd: Number(r.cost_usd) } : null;
  }
}
