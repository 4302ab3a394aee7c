import type { MemoryStatus } from '@nestclaw/memory';
import { memoryChecks } from './memory.check';

const healthy: MemoryStatus = {
  mode: 'keyword-only',
  memories: 2,
  chunks: 2,
  indexedChunks: 2,
  queue: { pending: 0, parked: 0, oldestPendingMs: null },
  index: { ready: true, version: 'v', expected: 'v', current: true, builtAt: null },
  embedding: { model: null, lastError: null },
  reindex: { state: 'done', done: 2, total: 2 },
  lastFallback: null,
  workerError: null,
  parked: [],
};
const names = async (s: Partial<MemoryStatus>) => (await memoryChecks(async () => ({ ...healthy, ...s }))).map((c) => c.name);

describe('the memory lines of /doctor', () => {
  it('is one ok line for a healthy memory, even after a keyword-only fallback', async () => {
    expect(await names({ lastFallback: { at: 't', reason: 'keyword-only: no embedding model configured' } })).toEqual(['memory']);
  });

  it('warns when a recall gave a turn nothing because the store failed or was slow', async () => {
    const checks = await memoryChecks(async () => ({
      ...healthy,
      lastFallback: { at: 't', reason: 'memory store plugin:vec failed: search backend down' },
    }));
    expect(checks[1]).toMatchObject({
      name: 'memory recall',
      status: 'warn',
      message: 'at t: memory store plugin:vec failed: search backend down',
    });
    expect(
      await names({ lastFallback: { at: 't', reason: 'recall took longer than 150 ms; the turn went on without memories' } }),
    ).toContain('memory recall');
  });

  it('warns with the reason when the last rebuild failed (a plugin store nobody registered)', async () => {
    const checks = await memoryChecks(async () => ({
      ...healthy,
      index: { ...healthy.index, ready: false },
      reindex: {
        state: 'failed',
        done: 0,
        total: 0,
        error: 'memory.store is plugin:vec, but no loaded trusted plugin registered a memory store "vec"',
      },
    }));
    expect(checks.find((c) => c.name === 'memory rebuild')?.message).toMatch(/no loaded trusted plugin registered a memory store "vec"/);
  });
});
