import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedPostgres } from '@nestclaw/db';
import { TcpProxy } from '../fixtures/tcp-proxy';
import { eventually } from '../support/eventually';
import { TEST_TOKEN } from '../support/gateway-harness';
import { GatewayProcess, spawnGateway } from '../support/gateway-process';
import { createTestDatabase, TestDatabase } from '../support/test-database';

/** How long the database stays unreachable: a 200 ms poll that logs every failure would print ~30 lines. */
const OUTAGE_MS = 6_000;

/** Issue 22: during a database outage the polling loops log a failure once and their recovery once, not every poll. */
describe('log lines during a database outage (the built gateway, its database cut)', () => {
  let db: TestDatabase;
  let proxy: TcpProxy;
  let gateway: GatewayProcess;
  let home: string;
  let embeddedStop: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    db = await createTestDatabase();
    home = mkdtempSync(join(tmpdir(), 'nestclaw-outage-'));
    let target = db.url ? new URL(db.url) : undefined;
    if (!target) {
      const e = await startEmbeddedPostgres(join(home, 'db'), () => undefined);
      embeddedStop = e.stop;
      target = new URL(e.url);
    }
    proxy = new TcpProxy('127.0.0.1', Number(target.port));
    const proxied = new URL(target.toString());
    proxied.port = String(await proxy.start());
    gateway = await spawnGateway({
      PATH: process.env.PATH,
      NESTCLAW_HOME: join(home, 'home'),
      NESTCLAW_TOKEN: TEST_TOKEN,
      DATABASE_URL: proxied.toString(),
    });
  });

  afterAll(async () => {
    await gateway?.stop();
    await proxy.stop();
    await embeddedStop?.();
    await db.drop();
    rmSync(home, { recursive: true, force: true });
  });

  const linesWith = (text: string, from: number) =>
    gateway
      .output()
      .slice(from)
      .split('\n')
      .filter((l) => l.includes(text));

  it('logs the memory worker and the scheduler failing once each, and recovering once each', async () => {
    // The worker only polls the queue once the memory index is open.
    await eventually(
      'the memory index',
      async () => {
        const res = await fetch(`${gateway.url}/v1/memory/status`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } });
        return res.ok && ((await res.json()) as { index: { ready: boolean } }).index.ready;
      },
      30_000,
    );
    const from = gateway.output().length;
    await proxy.cut();
    await eventually(
      'the first failure lines',
      () => linesWith('memory index worker', from).length > 0 && linesWith('looking for due jobs', from).length > 0,
    );
    // The outage has to last for the repeats to happen; what is counted is the lines they made.
    await new Promise((r) => setTimeout(r, OUTAGE_MS));
    const loops = ['memory index worker', 'looking for due jobs'];
    // The workspace-file scan polls every few seconds: it may or may not meet the outage, but never repeats itself.
    for (const loop of [...loops, 'scanning workspace memory files']) {
      const lines = linesWith(loop, from);
      // One line per distinct error (a cut connection, then "database unavailable").
      if (lines.length > 3) throw new Error(`${lines.length} lines from "${loop}" in a ${OUTAGE_MS} ms outage:\n${lines.join('\n')}`);
    }
    await proxy.restore();
    await eventually('both recoveries', () => linesWith('recovered after', from).length >= 2, 20_000);
    for (const loop of loops) expect(linesWith(loop, from).filter((l) => l.includes('recovered after'))).toHaveLength(1);
  }, 60_000);
});
