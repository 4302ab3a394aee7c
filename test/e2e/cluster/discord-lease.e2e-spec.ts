import { DiscordUser, FakeDiscordServer } from '../../fixtures/fake-discord.server';
import { FakeOpenAiServer } from '../../fixtures/fake-openai.server';
import { clusterDatabase } from '../../support/cluster-database';
import type { GatewayProcess } from '../../support/gateway-process';
import { fakeModelAt, ReplicaHomes } from '../../support/replica-homes';
import type { TestDatabase } from '../../support/test-database';

/**
 * Issue 24, item 1: one Discord gateway connection across replicas (the fake Discord counts open
 * connections); the others send through the REST API. Replicas share a PostgreSQL server as in
 * telegram-lease.e2e-spec.ts.
 */
const BOOT_MS = 90_000;
const REPLICAS = ['replica-a', 'replica-b', 'replica-c'] as const;
type Name = (typeof REPLICAS)[number];
const FAILOVER_MAX_MS = 10_000;

describe('one Discord gateway connection across replicas', () => {
  let dc: FakeDiscordServer;
  let llm: FakeOpenAiServer;
  let db: TestDatabase & { url: string };
  let replicas: ReplicaHomes<Name>;
  let running: Map<Name, GatewayProcess>;
  const discordUsers = Array.from({ length: 20 }, (_, i) => String(710_000_000_000_000_001n + BigInt(i)));
  let nextUser = 0;

  /** One DM per new user, each answered once (one message posted to its channel, the model asked once). */
  const converse = async (n: number, label: string) => {
    const users: DiscordUser[] = Array.from({ length: n }, () => ({ id: discordUsers[nextUser], username: `u${nextUser++}` }));
    const sent = users.map((u, i) => dc.dm(u, `${label} ${i}`));
    for (const [i, { channelId }] of sent.entries())
      await dc.waitFor(
        () => dc.postedTo(channelId).some((m) => m.current === `echo: ${label} ${i}`),
        30_000,
        `the answer to ${label} ${i}`,
      );
    for (const [i, { channelId }] of sent.entries()) {
      expect(dc.postedTo(channelId).map((m) => m.current)).toEqual([`echo: ${label} ${i}`]);
      expect(llm.requests.filter((r) => r.body.messages.filter((m) => m.role === 'user').at(-1)?.content === `${label} ${i}`)).toHaveLength(
        1,
      );
    }
  };

  beforeAll(async () => {
    dc = new FakeDiscordServer();
    await dc.start();
    llm = new FakeOpenAiServer();
    await llm.start();
    db = await clusterDatabase();
    replicas = new ReplicaHomes(
      'nestclaw-cluster-dc-',
      REPLICAS,
      db.url,
      () => ({
        models: fakeModelAt(llm.url),
        channels: { discord: { enabled: true, token: dc.token, api_root: dc.url, allow_from: discordUsers, stream_edit_interval: 50 } },
        security: { rate_limit: { per_sender: { limit: 1000, window: '1m' } } },
      }),
      BOOT_MS,
    );
    running = replicas.running;
    await Promise.all([replicas.start('replica-a'), replicas.start('replica-b')]);
  }, 3 * BOOT_MS);

  afterAll(async () => {
    await replicas?.destroy();
    await dc?.stop();
    await llm?.stop();
    await db?.drop();
  });

  it('keeps one gateway connection open, moves it within 10 s after kill -9 of its owner, and answers each message once', async () => {
    await dc.waitFor(() => dc.connected, 20_000, 'a gateway connection');
    await converse(3, 'discord');
    expect(dc.openConnections).toBe(1);
    expect(dc.peakConnections).toBe(1);
    // The owner, as /v1/cluster names it.
    const [someone] = running.values();
    const view = (await (await someone.api('/v1/cluster')).json()) as {
      replicas: { id: string; pid: number }[];
      leases: { name: string; holder: string | null }[];
    };
    const holder = view.replicas.find((r) => r.id === view.leases.find((l) => l.name === 'channel:discord')?.holder)!;
    const [ownerName, ownerProcess] = [...running].find(([, g]) => g.child.pid === holder.pid)!;
    const killedAt = Date.now();
    await ownerProcess.kill9();
    running.delete(ownerName);
    const reconnectedAt = await dc.waitFor(() => dc.connectedAt.find((t) => t >= killedAt), 20_000, 'another gateway connection');
    await dc.waitFor(() => dc.connected, 5_000, 'the new connection ready');
    console.log(`[discord-lease] Discord failover after kill -9: ${reconnectedAt - killedAt} ms`);
    expect(reconnectedAt - killedAt).toBeLessThanOrEqual(FAILOVER_MAX_MS);
    await converse(3, 'discord after failover');
    expect(dc.openConnections).toBe(1);
    expect(dc.peakConnections).toBe(1);
  }, 180_000);
});
