import { Injectable } from '@nestjs/common';
import { DatabaseService, viaPrisma } from '@nestclaw/db';

export interface WebSessionRow {
  id: string;
  token_id: string | null;
  /** The paired token's name; null for the owner. */
  token_name: string | null;
  scopes: string[];
  expires_at: Date;
}

/** How stale `last_seen_at` (and so the sliding expiry) may be: one write a minute per session, not per request. */
export const LAST_SEEN_RESOLUTION = '1 minute';

/**
 * `web_sessions`: browsers signed in with a cookie, stored as the sha256 of the cookie's id. Sign-in and
 * sign-out go through Prisma; the check made on every cookie request is one raw statement
 * (findLiveAndTouch: a CTE that reads and slides the expiry at once, as PairedTokenRepository does).
 */
@Injectable()
export class WebSessionRepository {
  constructor(private readonly db: DatabaseService) {}

  async insert(id: string, idHash: string, tokenId: string | null, scopes: readonly string[], expiresAt: Date): Promise<void> {
    await viaPrisma(() =>
      this.db.prisma.webSession.create({ data: { id, idHash, tokenId, scopes: [...scopes], expiresAt }, select: { id: true } }),
    );
  }

  /**
   * The live session with this hash, else null. Live means unexpired and, for a paired token's
   * session, that token unrevoked: a revocation refuses the next request even before its sessions are
   * deleted. The expiry slides by `ttlMs` when the last stamp is a minute old or more.
   */
  async findLiveAndTouch(idHash: string, ttlMs: number): Promise<WebSessionRow | null> {
    const { rows } = await this.db.query<WebSessionRow>(
      `WITH touch AS (
         UPDATE web_sessions SET last_seen_at = now(), expires_at = now() + $2 * interval '1 millisecond'
          WHERE id_hash = $1 AND expires_at > now() AND last_seen_at < now() - interval '${LAST_SEEN_RESOLUTION}'
         RETURNING id)
       SELECT s.id, s.token_id, t.name AS token_name, s.scopes, s.expires_at
         FROM web_sessions s LEFT JOIN api_tokens t ON t.id = s.token_id
        WHERE s.id_hash = $1 AND s.expires_at > now() AND (s.token_id IS NULL OR t.revoked_at IS NULL)`,
      [idHash, ttlMs],
      { name: 'nestclaw_web_session_check' },
    );
    return rows[0] ?? null;
  }

  /** Deletes the session with this hash; its id, or null when there was none. */
  async deleteByHash(idHash: string): Promise<string | null> {
    // Prisma has no deleteManyAndReturn, and delete() throws when the row is already gone.
    const { rows } = await this.db.query<{ id: string }>(`DELETE FROM web_sessions WHERE id_hash = $1 RETURNING id`, [idHash]);
    return rows[0]?.id ?? null;
  }

  /** Deletes every session opened with this paired token; how many there were. */
  async deleteByToken(tokenId: string): Promise<number> {
    return (await viaPrisma(() => this.db.prisma.webSession.deleteMany({ where: { tokenId } }))).count;
  }

  /** Deletes sessions that expired (swept on sign-in, so the table does not grow with abandoned browsers). */
  async deleteExpired(): Promise<number> {
    return (await viaPrisma(() => this.db.prisma.webSession.deleteMany({ where: { expiresAt: { lte: new Date() } } }))).count;
  }
}
