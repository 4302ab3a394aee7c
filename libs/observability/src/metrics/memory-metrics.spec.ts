import { Registry } from 'prom-client';
import { METRIC as M } from '../telemetry.names';
import { MemoryIndexState, MemoryMetrics, MemorySources } from './memory-metrics';

const STATE: MemoryIndexState = { pending: 7, oldestPendingSeconds: 3, keywordOnly: true };
const quietLogger = { warn: () => undefined } as never;

async function gauge(registry: Registry, name: string): Promise<number | undefined> {
  const m = await registry.getSingleMetric(name)?.get();
  return m?.values[0]?.value;
}

/** Lets settled promises' callbacks run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

function setup(read: MemorySources['memoryIndex']) {
  const registry = new Registry();
  const metrics = new MemoryMetrics(registry, { memoryIndex: read });
  // The reading's logger is the only thing swapped: failures must not spam the test output.
  (metrics.indexReading as unknown as { logger: unknown }).logger = quietLogger;
  return { registry, metrics };
}

describe('MemoryMetrics index gauges', () => {
  it('answers a scrape at once while the database read never returns', async () => {
    let reads = 0;
    const { registry } = setup(() => {
      reads++;
      return new Promise<MemoryIndexState>(() => undefined);
    });
    const scrape = registry.metrics();
    const raced = await Promise.race([scrape.then(() => 'answered'), new Promise((r) => setTimeout(() => r('waited'), 500))]);
    expect(raced).toBe('answered');
    await registry.metrics();
    await registry.metrics();
    expect(reads).toBe(1); // never more than one read in flight
  });

  it('shows the last value read, and refreshes it in the background once it is older than a second', async () => {
    let current = STATE;
    let reads = 0;
    const { registry } = setup(async () => {
      reads++;
      return current;
    });
    await registry.metrics(); // starts the first read
    await settle();
    expect(await gauge(registry, M.memoryIndexQueueDepth)).toBe(7);
    expect(await gauge(registry, M.memoryIndexQueueOldest)).toBe(3);
    expect(await gauge(registry, M.memoryKeywordOnly)).toBe(1);
    expect(reads).toBe(1); // the three gauges share one reading, and it is fresh

    current = { pending: 2, oldestPendingSeconds: 0, keywordOnly: false };
    const realNow = Date.now;
    Date.now = () => realNow() + 1500;
    try {
      expect(await gauge(registry, M.memoryIndexQueueDepth)).toBe(7); // the stale value, while the refresh runs
      await settle();
      expect(await gauge(registry, M.memoryIndexQueueDepth)).toBe(2);
      expect(await gauge(registry, M.memoryKeywordOnly)).toBe(0);
    } finally {
      Date.now = realNow;
    }
    expect(reads).toBe(2);
  });

  it('keeps the last value when a read fails, and counts the failure', async () => {
    let fail = false;
    const { registry, metrics } = setup(async () => {
      if (fail) throw new Error('connection refused');
      return STATE;
    });
    await registry.metrics();
    await settle();
    fail = true;
    const realNow = Date.now;
    Date.now = () => realNow() + 1500;
    try {
      await registry.metrics();
      await settle();
      expect(await gauge(registry, M.memoryIndexQueueDepth)).toBe(7);
    } finally {
      Date.now = realNow;
    }
    expect(metrics.indexReading.failures).toBe(1);
  });
});
