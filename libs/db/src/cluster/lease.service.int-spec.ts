import { IntDatabase, openIntDatabase, uniqueId } from '@nestclaw/testing';
import { LeasedWork, LeaseLoss, Leases } from './lease.service';
import { ReplicaRegistry, SELF_FENCE_MS } from './replica.registry';

/** A replica with its leases, recording what its work was told. */
interface Replica {
  registry: ReplicaRegistry;
  leases: Leases;
  events: string[];
  work(name: string): LeasedWork;
  stop(): Promise<void>;
}

async function until(check: () => boolean | Promise<boolean>, timeoutMs = 8000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('Leases (real database)', () => {
  let int: IntDatabase;
  const started: Replica[] = [];

  async function replica(): Promise<Replica> {
    const registry = new ReplicaRegistry(int.db, true);
    await registry.onApplicationBootstrap();
    const leases = new Leases(int.db, registry);
    const events: string[] = [];
    const r: Replica = {
      registry,
      leases,
      events,
      work: (name) => ({
        acquired: (fence: string) => void events.push(`${name} acquired ${fence}`),
        lost: (why: LeaseLoss) => void events.push(`${name} ${why}`),
      }),
      stop: async () => {
        await leases.beforeApplicationShutdown();
        await registry.beforeApplicationShutdown();
      },
    };
    started.push(r);
    return r;
  }

  beforeAll(async () => {
    int = await openIntDatabase();
  });
  afterEach(async () => {
    await Promise.all(started.splice(0).map((r) => r.stop()));
  });
  afterAll(async () => {
    await int?.close();
  });

  it('gives a lease to one replica of two, with a fence', async () => {
    const name = uniqueId('lease');
    const [a, b] = [await replica(), await replica()];
    a.leases.want(name, a.work(name));
    await a.leases.renew();
    b.leases.want(name, b.work(name));
    await b.leases.renew();
    expect(a.leases.fenceOf(name)).toBe('1');
    expect(b.leases.fenceOf(name)).toBeUndefined();
    expect(a.events).toEqual([`${name} acquired 1`]);
    expect(b.events).toEqual([]);
    const row = (await a.leases.list()).find((l) => l.name === name);
    expect(row).toMatchObject({ holder: a.registry.id, fence: '1', held: true });
  });

  it('lets another replica take the lease of a dead holder, under a higher fence, and the old holder stops', async () => {
    const name = uniqueId('lease');
    const [a, b] = [await replica(), await replica()];
    a.leases.want(name, a.work(name));
    await a.leases.renew();
    b.leases.want(name, b.work(name));
    await int.db.query(`UPDATE replicas SET last_seen = now() - interval '7 seconds' WHERE id = $1`, [a.registry.id]);
    await b.leases.renew();
    expect(b.leases.fenceOf(name)).toBe('2');
    // A's next beat finds the lease in B's hands (or A's self-fence fires first): A's work stops.
    await until(() => a.leases.fenceOf(name) === undefined);
    expect(a.events[1]).toMatch(new RegExp(`^${name} (taken|fenced)$`));
  });

  it('hands a released lease to the next replica at its next renewal', async () => {
    const name = uniqueId('lease');
    const [a, b] = [await replica(), await replica()];
    a.leases.want(name, a.work(name));
    await a.leases.renew();
    b.leases.want(name, b.work(name));
    await a.leases.release([name]);
    expect(a.events).toEqual([`${name} acquired 1`, `${name} released`]);
    await b.leases.renew();
    expect(b.leases.fenceOf(name)).toBe('2');
    expect((await b.leases.list()).find((l) => l.name === name)?.holder).toBe(b.registry.id);
  });

  it('stops the work by itself when it could not renew for SELF_FENCE_MS', async () => {
    const name = uniqueId('lease');
    const a = await replica();
    a.leases.want(name, a.work(name));
    await a.leases.renew();
    const renewedAt = Date.now();
    // The replica stops beating (as if cut off from the database): no more renewals.
    await a.registry.beforeApplicationShutdown();
    await until(() => a.leases.fenceOf(name) === undefined);
    const after = Date.now() - renewedAt;
    expect(a.events).toEqual([`${name} acquired 1`, `${name} fenced`]);
    expect(after).toBeGreaterThanOrEqual(SELF_FENCE_MS - 100);
    expect(after).toBeLessThan(SELF_FENCE_MS + 1000);
  });

  it('neither renews nor gives up a lease while its own beat is late (the self-fence decides)', async () => {
    const name = uniqueId('lease');
    const a = await replica();
    a.leases.want(name, a.work(name));
    await a.leases.renew();
    const expires = async () => (await a.leases.list()).find((l) => l.name === name)!.expiresAt.getTime();
    const before = await expires();
    // Its beats stop, its row last seen 3 s ago: alive for the others, too late to renew (TTL − self-fence = 2 s).
    await a.registry.beforeApplicationShutdown();
    await int.db.query(`INSERT INTO replicas (id, host, pid, version, last_seen) VALUES ($1, 'h', 1, 'v', now() - interval '3 seconds')`, [
      a.registry.id,
    ]);
    await a.leases.renew();
    expect(a.leases.fenceOf(name)).toBe('1');
    expect(a.events).toEqual([`${name} acquired 1`]);
    expect(await expires()).toBe(before);
  });

  it('spreads two leases over two alive replicas instead of giving both to the first', async () => {
    const names = [uniqueId('lease'), uniqueId('lease')];
    const [a, b] = [await replica(), await replica()];
    for (const n of names) a.leases.want(n, a.work(n));
    await a.leases.renew();
    for (const n of names) b.leases.want(n, b.work(n));
    await b.leases.renew();
    const heldBy = (r: Replica) => names.filter((n) => r.leases.fenceOf(n) !== undefined);
    expect(heldBy(a)).toEqual([names[0]]);
    expect(heldBy(b)).toEqual([names[1]]);
  });

  it('takes more than its share when the other replicas leave a lease free for SELF_FENCE_MS', async () => {
    const names = [uniqueId('lease'), uniqueId('lease')];
    const a = await replica();
    await replica(); // alive, but wants nothing: it counts in the share and takes nothing
    for (const n of names) a.leases.want(n, a.work(n));
    await a.leases.renew();
    expect(names.filter((n) => a.leases.fenceOf(n) !== undefined)).toEqual([names[0]]);
    await until(() => a.leases.fenceOf(names[1]) !== undefined, SELF_FENCE_MS + 4000);
  });
});
