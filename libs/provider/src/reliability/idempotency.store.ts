import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { AsyncResource } from 'node:async_hooks';
import type { ChatResponse } from '../model-provider.port';
import { IdempotencyKeyIndex, MAX_INDEXED_KEYS } from './idempotency.index';
import { IdempotencyRepository } from './idempotency.repository';

export interface StoredAnswer {
  key: string;
  modelName: string;
  response: ChatResponse;
}

/**
 * Answers already paid for, by idempotency key, so a retried or resumed request is answered again
 * without calling (and billing) the model twice.
 */
export abstract class IdempotencyStore {
  /** The first of `keys` (in order) with a live answer. */
  abstract find(keys: string[]): Promise<StoredAnswer | undefined>;
  /** Stores an answer; callers do not wait for it (it is visible to `find` at once in this process). */
  abstract remember(answer: StoredAnswer, ttlMs: number): void;
}

const PURGE_EVERY_MS = 10 * 60_000;
const FLUSH_AFTER_MS = 25;

/** `llm_idempotency` in PostgreSQL, rows expiring after the TTL (`providers.idempotency_ttl`). */
@Injectable()
export class PgIdempotencyStore extends IdempotencyStore implements BeforeApplicationShutdown {
  private readonly logger = new Logger('Idempotency');
  /** Answers whose INSERT may not have committed yet: `find` sees them at once. */
  private readonly pending = new Map<string, StoredAnswer>();
  private readonly writes = new Set<Promise<void>>();
  private readonly unsaved = new Map<string, { answer: StoredAnswer; ttlMs: number }>();
  private flushTimer?: NodeJS.Timeout;
  private readonly index = new IdempotencyKeyIndex();
  private loading?: Promise<void>;
  private lastPurge = 0;
  /** Its own async context: a batch's statements and log lines are not the turn's that started the timer. */
  private readonly scope = new AsyncResource('idempotency-store');

  constructor(private readonly rows: IdempotencyRepository) {
    super();
  }

  /** Loads the key index on first use (not at start-up: `nestclaw doctor` never needs it). */
  private loadIndex(): Promise<void> {
    return (this.loading ??= this.rows
      .liveKeys(MAX_INDEXED_KEYS + 1)
      .then((rows) => this.index.load(rows.map((r) => ({ key: r.key, expiresAt: r.exp }))))
      .catch((e: unknown) => this.logger.warn(`could not load stored answer keys, looking each up instead: ${(e as Error).message}`)));
  }

  async find(allKeys: string[]): Promise<StoredAnswer | undefined> {
    for (const key of allKeys) {
      const p = this.pending.get(key);
      if (p) return p;
    }
    await this.loadIndex();
    const keys = this.index.candidates(allKeys);
    if (keys.length === 0) return undefined;
    try {
      const rows = await this.rows.findLive(keys);
      if (rows.length === 0) return undefined;
      const byKey = new Map(rows.map((r) => [r.key, r]));
      const hit = keys.map((k) => byKey.get(k)).find((r) => r !== undefined);
      return hit && { key: hit.key, modelName: hit.model_name, response: hit.response };
    } catch (e) {
      // The cache being unreachable must not fail the request: it only risks a second charge.
      this.logger.warn(`idempotency lookup failed, calling the model: ${(e as Error).message}`);
      return undefined;
    }
  }

  remember(answer: StoredAnswer, ttlMs: number): void {
    this.pending.set(answer.key, answer);
    this.index.add(answer.key, Date.now() + ttlMs);
    this.unsaved.set(answer.key, { answer, ttlMs });
    // Answers are written in batches: one statement per FLUSH_AFTER_MS instead of one per turn
    // (each statement costs a round trip and a syscall on the hot path). `pending` covers the gap.
    this.flushTimer ??= this.scope.runInAsyncScope(() => setTimeout(() => this.flush(), FLUSH_AFTER_MS));
  }

  private flush(): void {
    this.flushTimer = undefined;
    const batch = [...this.unsaved.values()];
    this.unsaved.clear();
    if (batch.length === 0) return;
    this.track(this.rows.saveMany(batch.map((b) => ({ ...b.answer, ttlMs: b.ttlMs }))), 'store answers', () =>
      batch.forEach((b) => this.pending.delete(b.answer.key)),
    );
    const now = Date.now();
    if (now - this.lastPurge >= PURGE_EVERY_MS) {
      this.lastPurge = now;
      this.track(this.rows.purgeExpired(), 'purge expired answers');
    }
  }

  private track(query: Promise<unknown>, what: string, after?: () => void): void {
    const write: Promise<void> = query
      .then(() => undefined)
      .catch((e: unknown) => this.logger.warn(`could not ${what}: ${(e as Error).message}`))
      .finally(() => {
        after?.();
        this.writes.delete(write);
      });
    this.writes.add(write);
  }

  /** Lets in-flight writes finish before the pool closes (a restarted gateway must find them). */
  async beforeApplicationShutdown(): Promise<void> {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flush();
    await Promise.allSettled([...this.writes]);
  }
}
