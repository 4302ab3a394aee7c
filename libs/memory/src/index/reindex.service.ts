import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestclaw/config';
import { ActiveEmbedder, MemoryEmbedder } from '../embedding/memory-embedder';
import { memoryError } from '../memory.errors';
import { MemoryRepository } from '../store/memory.repository';
import { IndexFeedCursor } from './index-feed.cursor';
import { BuiltRows, IndexRowBuilder } from './index-rows';
import { describeVersion, expectedVersion, IndexVersion } from './index-version';
import { ActiveIndex } from './active-index';

export interface ReindexProgress {
  state: 'idle' | 'running' | 'done' | 'failed';
  reason?: string;
  /** Chunks written to the new index so far, of `total` live chunks when it started. */
  done: number;
  total: number;
  startedAt?: string;
  finishedAt?: string;
  /** Chunks per second so far. */
  rate?: number;
  error?: string;
}

const PAGE = 5_000;
/** After a failed or keyword-only-by-necessity build, wait before trying again on our own. */
const RETRY_AFTER_MS = 5 * 60_000;

/**
 * Rebuilds the derived index from Postgres into a new table while the old one (if any) keeps
 * serving, then switches. Runs at start-up when the stored index version (schema, tokenizer,
 * embedding model) differs from what this process expects, when the index directory is gone, and on
 * demand (POST /admin/reindex). The index worker pauses meanwhile; queued changes apply after.
 */
@Injectable()
export class ReindexService {
  private readonly logger = new Logger('MemoryReindex');
  private state: ReindexProgress = { state: 'idle', done: 0, total: 0 };
  private running: Promise<void> | undefined;
  private retryAt = 0;

  constructor(
    private readonly config: ConfigService,
    private readonly indexes: ActiveIndex,
    private readonly memories: MemoryRepository,
    private readonly rows: IndexRowBuilder,
    private readonly embedder: MemoryEmbedder,
    private readonly cursor: IndexFeedCursor,
  ) {}

  get progress(): ReindexProgress {
    return { ...this.state };
  }

  get isRunning(): boolean {
    return !!this.running;
  }

  expected(): IndexVersion {
    return expectedVersion(this.embedder.active()?.key);
  }

  /** Starts a background rebuild when the index is missing or was built for another version. */
  ensureCurrent(): void {
    if (this.running || Date.now() < this.retryAt) return;
    const expected = this.expected();
    const index = this.indexes.current;
    if (index.matches(expected)) return;
    const why = index.version
      ? `index built with ${describeVersion(index.version)}; expected ${describeVersion(expected)}`
      : this.indexes.plugin
        ? `memory store plugin:${this.indexes.plugin.selected} is empty or was filled by another plugin version`
        : 'no index on disk';
    this.start(why);
  }

  /** Starts a rebuild (refused while one runs); `wait()` resolves when it ends. */
  start(reason: string): ReindexProgress {
    if (this.running) throw memoryError('memory_reindex_running', 'A reindex is already running; follow it with GET /v1/memory/status');
    this.logger.log(`rebuilding the memory index: ${reason}`);
    this.state = { state: 'running', reason, done: 0, total: 0, startedAt: new Date().toISOString() };
    this.running = this.run()
      .catch((e: unknown) => {
        this.state = { ...this.state, state: 'failed', error: (e as Error).message, finishedAt: new Date().toISOString() };
        this.retryAt = Date.now() + RETRY_AFTER_MS;
        this.logger.error(`memory reindex failed: ${(e as Error).message}`);
      })
      .finally(() => (this.running = undefined));
    return this.progress;
  }

  async wait(): Promise<void> {
    await this.running;
  }

  /** An empty database still needs the vector size for the table; ask the model once. */
  private async probeDims(active: NonNullable<ReturnType<MemoryEmbedder['active']>>): Promise<number | null> {
    try {
      return (await active.embedder.embed(['dimension probe'])).vectors[0]?.length || null;
    } catch {
      return null;
    }
  }

  /** A page of live chunks after `after`, turned into index rows. */
  private async page(after: string, active: ActiveEmbedder | undefined): Promise<{ last?: string; count: number; built: BuiltRows }> {
    const chunks = await this.memories.liveChunksAfter(after, PAGE);
    return { last: chunks[chunks.length - 1]?.chunkId, count: chunks.length, built: await this.rows.build(chunks, active) };
  }

  private async run(): Promise<void> {
    const started = performance.now();
    // Every change before this point in the feed is committed before the first page is read.
    const head = await this.cursor.rebuildStarting();
    this.state.total = (await this.memories.counts()).chunks;
    const active = this.embedder.active();
    let current = await this.page('0', active);
    // The vector size is whatever the model returns; without a vector (model down) the build is keyword-only.
    let dims = current.built.rows.find((r) => r.vector?.length)?.vector?.length ?? null;
    if (active && !dims && current.count === 0) dims = await this.probeDims(active);
    const keywordOnly = !!active && !dims;
    const build = await this.indexes.current.startBuild(dims);
    try {
      while (current.count) {
        // Read, embed-from-cache and tokenize the next page while LanceDB writes this one (off the JS thread).
        const next = this.page(current.last!, dims ? active : undefined);
        next.catch(() => undefined);
        await build.add(current.built.rows);
        this.state.done += current.count;
        this.state.rate = Math.round(this.state.done / ((performance.now() - started) / 1000));
        if (this.state.total > PAGE) this.logger.log(`memory index rebuild: ${this.state.done}/${this.state.total} chunks`);
        current = await next;
      }
      // An index without the vectors it was meant to have is marked keyword-only, so a later check rebuilds it.
      const version = keywordOnly ? expectedVersion(undefined) : this.expected();
      await build.finish(version);
    } catch (e) {
      await build.abandon();
      throw e;
    }
    await this.cursor.rebuilt(head);
    if (keywordOnly && this.state.total > 0) this.retryAt = Date.now() + RETRY_AFTER_MS;
    const seconds = (performance.now() - started) / 1000;
    this.state = { ...this.state, state: 'done', finishedAt: new Date().toISOString(), rate: Math.round(this.state.done / seconds) };
    this.logger.log(`memory index rebuilt: ${this.state.done} chunks in ${seconds.toFixed(1)} s`);
  }
}
