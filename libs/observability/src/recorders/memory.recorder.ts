import type { MemoryIndexState } from '../metrics/memory-metrics';
import { telemetry } from '../telemetry.state';

export type MemoryRecallMode = 'keyword' | 'vector' | 'hybrid';
export type EmbeddingPurpose = 'query' | 'index';

/** One recall: its latency under the mode that actually ran, and whether it found nothing. */
export function recordMemoryRecall(mode: MemoryRecallMode, seconds: number, hits: number): void {
  const m = telemetry.metrics?.memory;
  if (!m) return;
  m.recallDuration.labels(mode).observe(seconds);
  if (hits === 0) m.zeroHits.labels(mode).inc();
}

export function recordEmbeddingCall(purpose: EmbeddingPurpose, failed: boolean): void {
  const m = telemetry.metrics?.memory;
  if (!m) return;
  m.embeddingCalls.labels(purpose).inc();
  if (failed) m.embeddingErrors.labels(purpose).inc();
}

export function recordEmbeddingCacheHits(purpose: EmbeddingPurpose, count: number): void {
  if (count > 0) telemetry.metrics?.memory.embeddingCacheHits.labels(purpose).inc(count);
}

/** Queue depth, oldest pending age and the keyword-only flag: read in the background, never while a scrape waits. */
export function observeMemoryIndex(source: () => Promise<MemoryIndexState>): void {
  telemetry.sources.memoryIndex = source;
}
