import { Injectable } from '@nestjs/common';
import { DatabaseService, viaPrisma } from '@nestclaw/db';

export interface TokenRow {
  id: string;
  name: string;
  scopes: string[];
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

const COLUMNS = 'id, name, scopes, created_at, last_used_at, revoked_at';
/** How stale `last_used_at` may be: it records the last use to the minute, not to the request. */
export const LAST_USED_RESOLUTION = '1 minute';

/** The columns people see, as Prisma selects them. */
const SELECT = { id: true, name: true, scopes: true, createdAt: true, lastUsedAt: true, revokedAt: true } as const;

const toRow = (r: {
  id: string;
  name: string;
  scopes: string[];
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}): TokenRow => ({
  id: r.id,
  name: r.name,
  scopes: r.scopes,
  created_at: r.createdAt,
  last_used_at: r.lastUsedAt,
  revoked_at: r.revokedAt,
});

/**
 * `api_tokens`: paired API clients' tokens, stored as sha256 only. The admin reads and writes (issue,
 * list, revoke) go through Prisma; the check made on every request stays one raw statement
 * (findLiveAndStamp: a CTE that reads and stamps at once, which Prisma cannot express in one).
 */
@Injectable()
export class PairedTokenRepository {
  constructor(private readonly db: DatabaseService) {}

  async insert(id: string, name: string, tokenHash: string, scopes: readonly string[]): Promise<TokenRow> {
    return toRow(
      await viaPrisma(() => this.db.prisma.apiToken.create({ data: { id, name, tokenHash, scopes: [...scopes] }, select: SELECT })),
    );
  }

  /**
   * The live token with this hash, else null: read on every request, so a revocation (from the CLI or
   * another process) refuses the very next request. `last_used_at` is only rewritten when it is a
   * minute old or more: a token used on every request (a Prometheus scrape, a busy client) costs one
   * row write a minute instead of one per request; the UPDATE that matches nothing writes nothing.
   */
  async findLiveAndStamp(tokenHash: string): Promise<TokenRow | null> {
    const { rows } = await this.db.query<TokenRow>(
      `WITH stamp AS (
         UPDATE api_tokens SET last_used_at = now()
          WHERE token_hash = $1 AND revoked_at IS NULL
            AND (last_used_at IS NULL OR last_used_at < now() - interval '${LAST_USED_RESOLUTION}')
         RETURNING id)
       SELECT ${COLUMNS} FROM api_tokens WHERE token_hash = $1 AND revoked_at IS NULL`,
      [tokenHash],
    );
    return rows[0] ?? null;
  }

  async listAll(): Promise<TokenRow[]> {
    return (await viaPrisma(() => this.db.prisma.apiToken.findMany({ select: SELECT, orderBy: { createdAt: 'asc' } }))).map(toRow);
  }

  /** Ids starting with `prefix` (a uuid column has no LIKE in Prisma; paired tokens are few). */
  async findIdsByPrefix(prefix: string): Promise<string[]> {
    const rows = await viaPrisma(() => this.db.prisma.apiToken.findMany({ select: { id: true } }));
    return rows.map((r) => r.id).filter((id) => id.startsWith(prefix));
  }

  /** Revokes (keeping the first revocation time) and returns the row. */
  async markRevoked(id: string): Promise<TokenRow> {
    const [revoked] = await viaPrisma(() =>
      this.db.prisma.apiToken.updateManyAndReturn({ where: { id, revokedAt: null }, data: { revokedAt: new Date() }, select: SELECT }),
    );
    return toRow(revoked ?? (await viaPrisma(() => this.db.prisma.apiToken.findUniqueOrThrow({ where: { id }, select: SELECT }))));
  }
}
