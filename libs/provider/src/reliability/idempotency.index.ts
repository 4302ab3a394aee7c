/** Keys beyond this are not indexed: the store then asks PostgreSQL on every lookup. */
export const MAX_INDEXED_KEYS = 200_000;

/**
 * The keys (and expiry) of every live stored answer, loaded once from `llm_idempotency` and kept in
 * step by this process's writes, so a request that was never answered before — almost every
 * request — is recognised without a database round trip. Only a likely hit goes to PostgreSQL.
 *
 * It assumes one gateway process per database (nestclaw's deployment model): answers written by
 * another process after the load are not seen. When the load fails or the index would grow past
 * MAX_INDEXED_KEYS it gives up (`complete = false`) and every lookup goes to the database.
 */
export class IdempotencyKeyIndex {
  private readonly expiries = new Map<string, number>();
  complete = false;

  load(rows: { key: string; expiresAt: number }[]): void {
    this.expiries.clear();
    for (const r of rows) this.expiries.set(r.key, r.expiresAt);
    this.complete = rows.length <= MAX_INDEXED_KEYS;
    if (!this.complete) this.expiries.clear();
  }

  add(key: string, expiresAt: number, now = Date.now()): void {
    if (!this.complete) return;
    if (this.expiries.size >= MAX_INDEXED_KEYS) {
      for (const [k, exp] of this.expiries) if (exp <= now) this.expiries.delete(k);
      if (this.expiries.size >= MAX_INDEXED_KEYS) {
        this.complete = false;
        this.expiries.clear();
        return;
      }
    }
    this.expiries.set(key, expiresAt);
  }

  /** The keys that may have a live answer (all of them when the index is not complete). */
  candidates(keys: string[], now = Date.now()): string[] {
    if (!this.complete) return keys;
    return keys.filter((k) => {
      const exp = this.expiries.get(k);
      if (exp === undefined) return false;
      if (exp > now) return true;
      this.expiries.delete(k);
      return false;
    });
  }
}
