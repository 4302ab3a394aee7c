import { IdempotencyStore, StoredAnswer } from '@nestclaw/provider';

/** In-process idempotency store for unit specs and the benchmark (production uses PgIdempotencyStore). */
export class MemoryIdempotencyStore extends IdempotencyStore {
  private readonly answers = new Map<string, { answer: StoredAnswer; expiresAt: number }>();

  constructor(private readonly now: () => number = Date.now) {
    super();
  }

  find(keys: string[]): Promise<StoredAnswer | undefined> {
    const now = this.now();
    for (const key of keys) {
      const a = this.answers.get(key);
      if (a && a.expiresAt > now) return Promise.resolve(a.answer);
    }
    return Promise.resolve(undefined);
  }

  remember(answer: StoredAnswer, ttlMs: number): void {
    this.answers.set(answer.key, { answer, expiresAt: this.now() + ttlMs });
  }
}
