import { IntDatabase, openIntDatabase, uniqueId } from '@nestclaw/testing';
import { RateLimitRepository } from './rate-limit.repository';
import { SharedRateLimiter } from './shared-rate-limiter.service';

describe('SharedRateLimiter (real database)', () => {
  let int: IntDatabase;
  let replicaA: SharedRateLimiter;
  let replicaB: SharedRateLimiter;
  beforeAll(async () => {
    int = await openIntDatabase();
    // Two limiters on one database stand for two replicas: nothing is shared but the table.
    replicaA = new SharedRateLimiter(new RateLimitRepository(int.db));
    replicaB = new SharedRateLimiter(new RateLimitRepository(int.db));
  });
  afterAll(() => int?.close());

  it('admits `limit` hits in total across two limiters counting the same key, then says how long to wait', async () => {
    const key = uniqueId('token');
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? replicaA : replicaB).hit(key, 4, 60_000)));
    expect(answers.filter((ms) => ms === 0)).toHaveLength(4);
    for (const ms of answers.filter((ms) => ms > 0)) {
      expect(ms).toBeGreaterThan(50_000);
      expect(ms).toBeLessThanOrEqual(60_000);
    }
  });

  it('marks only the first refused hit of a window as the first refusal', async () => {
    const key = uniqueId('sender');
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await (i % 2 ? replicaA : replicaB).check(key, 2, 60_000));
    expect(results.map((r) => r.firstRefusal)).toEqual([false, false, true, false]);
  });

  it('starts a new window once the old one is over', async () => {
    const key = uniqueId('token');
    // 2 s: the second hit must land inside the window even on a starved machine (300 ms did not, once).
    expect(await replicaA.hit(key, 1, 2000)).toBe(0);
    expect(await replicaB.hit(key, 1, 2000)).toBeGreaterThan(0);
    // Wait for the database's clock, which decides the window, not for a fixed sleep.
    await int.db.pool.query(`SELECT pg_sleep(2.05)`);
    expect(await replicaB.hit(key, 1, 2000)).toBe(0);
  });

  it('keeps separate counts for separate keys', async () => {
    const [a, b] = [uniqueId('token'), uniqueId('token')];
    expect(await replicaA.hit(a, 1, 60_000)).toBe(0);
    expect(await replicaA.hit(b, 1, 60_000)).toBe(0);
  });
});
