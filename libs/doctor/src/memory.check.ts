import type { MemoryStatus } from '@nestclaw/memory';
import type { DoctorCheck } from './doctor.service';

/** The memory index, its embeddings and its queue, from the memory lib's status (or why it was unavailable). */
export async function memoryChecks(status: () => Promise<MemoryStatus>): Promise<DoctorCheck[]> {
  let s: MemoryStatus;
  try {
    s = await status();
  } catch (e) {
    return [{ name: 'memory', status: 'warn', message: `status unavailable: ${(e as Error).message}` }];
  }
  const checks: DoctorCheck[] = [
    {
      name: 'memory',
      status: s.index.ready ? 'ok' : 'warn',
      message: `${s.mode}; ${s.memories} memories, ${s.indexedChunks}/${s.chunks} chunks indexed, queue ${s.queue.pending} pending${
        s.reindex.state === 'running' ? `, rebuilding ${s.reindex.done}/${s.reindex.total}` : ''
      }`,
      ...(s.index.ready ? {} : { fix: 'the index is being built from the database; recall uses Postgres meanwhile' }),
    },
  ];
  if (s.mode === 'keyword-only' && s.embedding.model)
    checks.push({
      name: 'memory embeddings',
      status: 'warn',
      message: `keyword-only: ${s.embedding.lastError?.message ?? 'index has no vectors yet'}`,
      fix: 'check the embedding model in `nestclaw doctor` providers',
    });
  if (s.reindex.state === 'failed')
    checks.push({
      name: 'memory rebuild',
      status: 'warn',
      message: `the last rebuild failed: ${s.reindex.error ?? 'no error recorded'}`,
      fix: 'fix the cause (for memory.store: plugin:<id>, the plugin must be loaded and trusted); it is retried every 5 minutes',
    });
  // A recall that gave a turn nothing because its store failed or was too slow (not a mere keyword-only fallback).
  const failed = s.lastFallback && /^(memory store |recall took longer|recall failed)/.test(s.lastFallback.reason);
  if (failed)
    checks.push({
      name: 'memory recall',
      status: 'warn',
      message: `at ${s.lastFallback!.at}: ${s.lastFallback!.reason}`,
      fix: 'check the memory store (memory.store) and memory.recall.timeout',
    });
  if (s.queue.parked > 0)
    checks.push({
      name: 'memory queue',
      status: 'warn',
      message: `${s.queue.parked} index_queue entr${s.queue.parked === 1 ? 'y' : 'ies'} parked after repeated failures: ${s.parked
        .map((p) => `${p.memoryId} (${p.lastError ?? 'no error'})`)
        .join('; ')}`,
      fix: 'fix the cause, then run `nestclaw memory reindex` (it retries parked entries)',
    });
  return checks;
}
