import { clusterDatabase } from '../../support/cluster-database';
import { ReplicaHomes } from '../../support/replica-homes';
import type { TestDatabase } from '../../support/test-database';

/** Issue 24: replicas of a new deployment start together; one applies the migrations, the others wait for its lock. */
const BOOT_MS = 90_000;
const REPLICAS = ['replica-a', 'replica-b', 'replica-c'] as const;
type Name = (typeof REPLICAS)[number];

describe('three replicas started at once on an empty database', () => {
  let db: TestDatabase & { url: string };
  let replicas: ReplicaHomes<Name>;

  beforeAll(async () => {
    db = await clusterDatabase();
    replicas = new ReplicaHomes('nestclaw-cluster-boot-', REPLICAS, db.url, () => ({}), BOOT_MS);
  });
  afterAll(async () => {
    await replicas?.destroy();
    await db?.drop();
  });

  it(
    'migrates once (the others wait on the lock) and all three become ready',
    async () => {
      const started = await Promise.all(REPLICAS.map((name) => replicas.start(name, { logLevel: 'log' })));
      const migrated = started.filter((g) => /applied \d+ migration\(s\)/.test(g.output()));
      expect(migrated).toHaveLength(1);
      for (const g of started) expect((await fetch(`${g.url}/health/ready`)).status).toBe(200);
      const view = (await (await started[0].api('/v1/cluster')).json()) as { replicas: { alive: boolean }[] };
      expect(view.replicas.filter((r) => r.alive)).toHaveLength(3);
    },
    3 * BOOT_MS,
  );
});
