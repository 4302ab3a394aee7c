import { Inject, Injectable, Optional } from '@nestjs/common';
import { ConfigService } from '@nestclaw/config';
import { recordEmbeddingCacheHits, recordEmbeddingCall } from '@nestclaw/observability';
import { EmbeddingProvider, ProviderRegistry } from '@nestclaw/provider';
import { EmbeddingCacheRepository } from './embedding-cache.repository';

/** Replaces the configured embedding model (the benchmark's deterministic local embedder). */
export const MEMORY_EMBEDDER_OVERRIDE = Symbol('MEMORY_EMBEDDER_OVERRIDE');

export interface ActiveEmbedder {
  /** Identity of the vectors: config name, backend model and requested size. A change means a rebuild. */
  key: string;
  embedder: EmbeddingProvider;
}

/** Texts per embedding request when indexing. */
const BATCH = 64;
const QUERY_CACHE_SIZE = 512;
/** An indexing batch that takes longer fails (and is retried with backoff) instead of stalling the worker. */
const INDEX_EMBED_TIMEOUT_MS = 60_000;

async function withTimeout<T>(ms: number, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      fn(controller.signal),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          controller.abort();
          reject(new Error(`embedding took longer than ${ms} ms`));
        }, ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The embedding side of memory: which model (memory.embedding_model, else the first `kind:
 * embedding` model, else none = keyword-only), a Postgres cache so no text is embedded twice, and a
 * time-boxed query embedding for recall.
 */
@Injectable()
export class MemoryEmbedder {
  private readonly queries = new Map<string, number[]>();
  lastError: { at: string; message: string } | undefined;

  constructor(
    private readonly config: ConfigService,
    private readonly registry: ProviderRegistry,
    private readonly cache: EmbeddingCacheRepository,
    @Optional() @Inject(MEMORY_EMBEDDER_OVERRIDE) private readonly override?: ActiveEmbedder,
  ) {}

  active(): ActiveEmbedder | undefined {
    if (this.override) return this.override;
    const { embedding_model } = this.config.get().memory;
    const name = embedding_model ?? this.registry.all().find((m) => m.kind === 'embedding')?.name;
    const model = name ? this.registry.embedding(name) : undefined;
    if (!model) return undefined;
    return { key: `${name}:${model.config.model}:${model.config.dimensions ?? 'default'}`, embedder: model.embedder };
  }

  /** The query's vector, or why there is none within `timeoutMs` (the caller falls back to keywords). */
  async embedQuery(text: string, timeoutMs: number): Promise<{ vector?: number[]; error?: string }> {
    const active = this.active();
    if (!active) return { error: 'no embedding model configured' };
    const cacheKey = `${active.key}\u0000${text}`;
    const hit = this.queries.get(cacheKey);
    if (hit) {
      recordEmbeddingCacheHits('query', 1);
      return { vector: hit };
    }
    let called = false;
    try {
      const pending = withTimeout(timeoutMs, (signal) => active.embedder.embed([text], { signal }));
      called = true;
      const result = await pending;
      const vector = result.vectors[0];
      if (!vector?.length) throw new Error('the embedding model returned no vector');
      recordEmbeddingCall('query', false);
      if (this.queries.size >= QUERY_CACHE_SIZE) this.queries.delete(this.queries.keys().next().value as string);
      this.queries.set(cacheKey, vector);
      return { vector };
    } catch (e) {
      if (called) recordEmbeddingCall('query', true);
      const message = (e as Error).message;
      this.lastError = { at: new Date().toISOString(), message };
      return { error: message };
    }
  }

  /** Vectors for indexing, by content hash: cached ones from Postgres, the rest embedded and cached. */
  async embedForIndex(active: ActiveEmbedder, items: { hash: string; text: string }[]): Promise<Map<string, ArrayLike<number>>> {
    const vectors: Map<string, ArrayLike<number>> = await this.cache.find(
      active.key,
      items.map((i) => i.hash),
    );
    const missing = new Map<string, string>();
    for (const i of items) if (!vectors.has(i.hash)) missing.set(i.hash, i.text);
    recordEmbeddingCacheHits('index', items.filter((i) => !missing.has(i.hash)).length);
    const todo = [...missing.entries()];
    for (let i = 0; i < todo.length; i += BATCH) {
      const batch = todo.slice(i, i + BATCH);
      const res = await withTimeout(INDEX_EMBED_TIMEOUT_MS, (signal) =>
        active.embedder.embed(
          batch.map(([, t]) => t),
          { signal },
        ),
      ).catch((e: unknown) => {
        recordEmbeddingCall('index', true);
        throw e;
      });
      recordEmbeddingCall('index', false);
      if (res.vectors.length !== batch.length)
        throw new Error(`the embedding model returned ${res.vectors.length} vectors for ${batch.length} texts`);
      const saved = batch.map(([hash], n) => ({ hash, vector: res.vectors[n] }));
      await this.cache.save(active.key, saved);
      for (const s of saved) vectors.set(s.hash, s.vector);
    }
    return vectors;
  }
}
