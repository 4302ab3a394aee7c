import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import WebSocket from 'ws';
import { packageRoot } from '@nestclaw/common';
import { FakeOpenAiServer } from '../../fixtures/fake-openai.server';
import { CLUSTER_TOKEN, HaCluster, SERVED_BY, startHaCluster } from '../../support/ha-cluster';
import { describeWithHostTools, HostToolPaths } from '../../support/host-tools';
import { clusterDatabase } from '../../support/cluster-database';
import type { TestDatabase } from '../../support/test-database';

const TITLE = 'three replicas on one PostgreSQL behind HAProxy';
const TOKEN_LIMIT = 6;

/**
 * Issue 24's deployment on one machine: three built gateways started at the same moment on one EMPTY
 * database (a scratch database on the test server, else an embedded PostgreSQL server shared over TCP:
 * test/support/cluster-database.ts), behind a real HAProxy on loopback. Without haproxy the suite
 * skips and says so (CI=true fails instead).
 */
function cluster(tools: HostToolPaths) {
  let db: TestDatabase & { url: string };
  let llm: FakeOpenAiServer;
  let ha: HaCluster;
  let sql: Client;

  beforeAll(async () => {
    db = await clusterDatabase();
    llm = new FakeOpenAiServer();
    await llm.start();
    ha = await startHaCluster({
      databaseUrl: db.url,
      llmUrl: llm.url,
      haproxy: tools.haproxy!,
      // `log`: the migration runner's "applied N migration(s)" line is the evidence of who migrated.
      logLevel: 'log',
      config: { security: { rate_limit: { per_token: { limit: TOKEN_LIMIT, window: '1m' } } } },
    });
    sql = new Client({ connectionString: db.url });
    await sql.connect();
  }, 90_000);

  afterAll(async () => {
    await sql?.end();
    await ha?.stop();
    await llm?.stop();
    await db?.drop();
  });

  it('migrates the empty database exactly once and makes all three replicas ready', async () => {
    const shipped = readdirSync(join(packageRoot(), 'prisma', 'migrations'), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();
    const { rows } = await sql.query<{ name: string }>('SELECT name FROM _migrations ORDER BY name');
    expect(rows.map((r) => r.name)).toEqual(shipped);
    // One replica ran the migrations (under the advisory lock); the other two waited and found nothing pending.
    const migrated = ha.replicas.map((r) => /applied (\d+) migration\(s\)/.exec(r!.output())?.[1]);
    expect(migrated.filter(Boolean)).toEqual([String(shipped.length)]);
    for (const replica of ha.replicas) expect((await fetch(`${replica!.url}/health/ready`)).status).toBe(200);
    const live = await sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM replicas WHERE nestclaw_replica_alive(id)`);
    expect(live.rows[0].n).toBe(3);
  });

  it('serves chat through the balancer on every replica and stores each reply exactly once', async () => {
    const served: string[] = [];
    const sessions: string[] = [];
    for (let i = 0; i < 9; i++) {
      const res = await ha.api('/v1/chat', { json: { message: `hello ${i}` } });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { sessionId: string; reply: string };
      expect(body.reply).toBe(`echo: hello ${i}`);
      served.push(res.headers.get(SERVED_BY) ?? '');
      sessions.push(body.sessionId);
    }
    expect(new Set(served)).toEqual(new Set(['r0', 'r1', 'r2']));
    const { rows } = await sql.query<{ session_id: string; n: number }>(
      `SELECT session_id, count(*)::int AS n FROM messages WHERE session_id = ANY($1) AND role = 'assistant' GROUP BY session_id`,
      [sessions],
    );
    expect(rows).toHaveLength(9);
    for (const row of rows) expect(row.n).toBe(1);
    expect(llm.chatRequests).toBeGreaterThanOrEqual(9);
  });

  it('passes a WebSocket chat through the balancer to a replica and back', async () => {
    const ws = new WebSocket(`${ha.url.replace('http', 'ws')}/ws`, { headers: { authorization: `Bearer ${CLUSTER_TOKEN}` } });
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    const done = new Promise<{ type: string; reply?: string }>((resolve) =>
      ws.on('message', (data: Buffer) => {
        const frame = JSON.parse(data.toString()) as { type: string; reply?: string };
        if (frame.type === 'done' || frame.type === 'error') resolve(frame);
      }),
    );
    ws.send(JSON.stringify({ type: 'chat', id: 'w1', message: 'over the balancer' }));
    expect(await done).toMatchObject({ type: 'done', reply: 'echo: over the balancer' });
    ws.close();
  });

  it('keeps serving through the balancer while a replica is killed with SIGKILL, and takes it back once restarted', async () => {
    await ha.kill9(1);
    // Refused connections are retried on another replica (redispatch), and the health checks drop r1 within a second.
    for (let i = 0; i < 6; i++) {
      const res = await ha.api('/v1/chat', { json: { message: `during ${i}` } });
      expect(res.status).toBe(200);
      expect(res.headers.get(SERVED_BY)).not.toBe('r1');
    }
    await ha.restart(1);
    await ha.balancedOver(3);
  });

  it(`admits a paired token's ${TOKEN_LIMIT} requests a minute across the three replicas, not ${3 * TOKEN_LIMIT}`, async () => {
    const codeRes = await ha.api('/v1/pair/codes', { json: {} });
    expect(codeRes.status).toBe(201);
    const { code } = (await codeRes.json()) as { code: string };
    const pairRes = await fetch(`${ha.url}/v1/pair`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code, name: 'ha-client' }),
    });
    expect(pairRes.status).toBe(201);
    const { token } = (await pairRes.json()) as { token: string };

    const answers = await Promise.all(
      Array.from({ length: 3 * TOKEN_LIMIT }, async (_, i) => {
        const res = await ha.api('/v1/chat', { json: { message: `limited ${i}` }, token });
        await res.body?.cancel();
        return { status: res.status, by: res.headers.get(SERVED_BY) ?? '', retryAfter: res.headers.get('retry-after') };
      }),
    );
    expect(new Set(answers.map((a) => a.by))).toEqual(new Set(['r0', 'r1', 'r2']));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(TOKEN_LIMIT);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused).toHaveLength(2 * TOKEN_LIMIT);
    for (const r of refused) expect(Number(r.retryAfter)).toBeGreaterThan(0);
  });
}

describeWithHostTools(['haproxy'], TITLE, cluster);
