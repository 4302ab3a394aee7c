import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ReplicaRegistry } from '@nestclaw/db';
import { FEED_START, FeedPosition, IndexQueueRepository, QueueEntry } from '../queue/index-queue.repository';

/** A failed entry this index will try again, and when. */
interface Retry {
  entry: QueueEntry;
  attempts: number;
  dueAt: number;
}

const KEY_FILE = 'feed-cursor.key';

function compare(a: FeedPosition, b: FeedPosition): number {
  const d = BigInt(a) - BigInt(b);
  return d === 0n ? 0 : d < 0n ? -1 : 1;
}

/** Just before entry `id` in feed order. */
function justBefore(id: string): FeedPosition {
  return String(BigInt(id) - 1n);
}

/**
 * This index's place in the change feed (issue 24). `scan` is how far it has read; what it saves is
 * how far everything is applied, which stops before the first entry still being retried, so a
 * restart applies that entry (and what follows it, harmlessly) again. The key naming the cursor lives
 * in the index directory: a new directory is a new index with a new cursor.
 */
@Injectable()
export class IndexFeedCursor {
  private indexKey = '';
  private scan: FeedPosition = FEED_START;
  private saved: FeedPosition | null = null;
  private readonly retries = new Map<string, Retry>();
  private isLoaded = false;

  constructor(
    private readonly feed: IndexQueueRepository,
    private readonly replica: ReplicaRegistry,
  ) {}

  /** Reads (or makes) the key in the index directory (files only: the cursor itself is loaded by `load`). */
  open(dir: string): void {
    const file = join(dir, KEY_FILE);
    if (!existsSync(file)) writeFileSync(file, randomUUID());
    this.indexKey = readFileSync(file, 'utf8').trim();
  }

  /** The key naming this index's cursor row ('' before the directory is open). */
  get key(): string {
    return this.indexKey;
  }

  get opened(): boolean {
    return this.indexKey !== '';
  }

  get loaded(): boolean {
    return this.isLoaded;
  }

  /** Loads the saved cursor; `behind` when the feed was pruned past it (the index may have missed changes: rebuild). */
  async load(): Promise<{ behind: boolean }> {
    if (!this.indexKey) throw new Error('the memory index directory is not open yet');
    const { position, horizon } = await this.feed.cursor(this.indexKey);
    this.scan = position ?? FEED_START;
    this.saved = position;
    this.isLoaded = true;
    return { behind: compare(this.scan, horizon) < 0 };
  }

  /** Where this index stands: everything up to here is applied. */
  get position(): FeedPosition {
    return this.saved ?? FEED_START;
  }

  /** The next settled entries after what was read. */
  async read(limit: number): Promise<QueueEntry[]> {
    const entries = await this.feed.readAfter(this.scan, limit);
    if (entries.length) this.scan = entries[entries.length - 1].id;
    return entries;
  }

  /** Failed entries whose retry is due. */
  due(now = Date.now()): QueueEntry[] {
    return [...this.retries.values()].filter((r) => r.dueAt <= now).map((r) => r.entry);
  }

  /** The earliest pending retry's due time, if any. */
  nextRetryAt(): number | undefined {
    const times = [...this.retries.values()].map((r) => r.dueAt);
    return times.length ? Math.min(...times) : undefined;
  }

  succeeded(ids: string[]): void {
    for (const id of ids) this.retries.delete(id);
  }

  /**
   * Records a failure; entries that reached `maxAttempts` are parked (marked for /doctor, skipped by
   * this index until a reindex or an operator puts them back). Returns how many were parked.
   */
  async failed(
    entries: QueueEntry[],
    error: string,
    o: { maxAttempts: number; baseMs: number; maxMs: number },
    now = Date.now(),
  ): Promise<number> {
    const parked: QueueEntry[] = [];
    for (const entry of entries) {
      const attempts = (this.retries.get(entry.id)?.attempts ?? 0) + 1;
      if (attempts >= o.maxAttempts) {
        this.retries.delete(entry.id);
        parked.push(entry);
      } else this.retries.set(entry.id, { entry, attempts, dueAt: now + Math.min(o.maxMs, o.baseMs * 2 ** (attempts - 1)) });
    }
    await this.feed.park(
      parked.map((e) => e.id),
      error,
      o.maxAttempts,
    );
    return parked.length;
  }

  /** Saves how far everything is applied, when that moved (one statement, which also prunes the feed). */
  async save(): Promise<void> {
    let to = this.scan;
    for (const r of this.retries.values()) if (compare(r.entry.id, to) <= 0) to = justBefore(r.entry.id);
    if (this.saved !== null && compare(to, this.saved) === 0) return;
    await this.feed.advance(this.indexKey, this.replica.id, to);
    this.saved = to;
  }

  /**
   * A rebuild is starting: returns the feed position it will reflect. The cursor saved meanwhile is
   * the lower of the two, so entries are kept for the old index (still serving) and for the new one.
   */
  async rebuildStarting(): Promise<FeedPosition> {
    if (!this.isLoaded) await this.load();
    const head = await this.feed.head();
    const keep = this.saved !== null && compare(this.saved, head) < 0 ? this.saved : head;
    await this.feed.advance(this.indexKey, this.replica.id, keep);
    this.saved = keep;
    return head;
  }

  /**
   * The rebuilt index reflects every entry up to `head`: read on from there, forget old retries, and
   * give parked entries another chance (each goes back into the feed, for every replica).
   */
  async rebuilt(head: FeedPosition): Promise<void> {
    this.retries.clear();
    this.scan = head;
    await this.feed.advance(this.indexKey, this.replica.id, head);
    this.saved = head;
    await this.feed.unpark();
  }
}
