import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedPostgres } from '@nestclaw/db';
import { TcpProxy } from '../fixtures/tcp-proxy';
import { eventually } from '../support/eventually';
import { TEST_TOKEN } from '../support/gateway-harness';
import { GatewayProcess, spawnGateway } from '../support/gateway-process';
import { createTestDatabase, TestDatabase } from '../support/test-database';

/** How long the database stays unreachable: a listener retrying every 200 ms and logging each failure would print ~30 lines. */
const OUTAGE_MS = 6_000;

/**
 * Issue 22: during a database outage the background work logs a failure once and its recovery once,
 * not every attempt. Since issue 23 the idle loops do not poll (they wait for wake-ups): what meets
 * the outage is the wake-up listener's connection, and its reconnection wakes the loops once after.
 */
describe('log lines during a database outage (the built gateway, its database cut)', () => {
  let db: TestDatabase;
  let proxy: TcpProxy;
  let gateway: GatewayProcess;
  let home: string;
  let embeddedStop: (() => Promise<void>) | undefined;
  /** PGlite shares one session among sockets: no LISTEN connection there, only in-process wake-ups. */
  let listens = true;

  beforeAll(async () => {
    db = await createTestDatabase();
    home = mkdtempSync(join(tmpdir(), 'nestclaw-outage-'));
    let target = db.url ? new URL(db.url) : undefined;
    if (!target) {
      const e = await startEmbeddedPostgres(join(home, 'db'), () => undefined);
      embeddedStop = e.stop;
      listens = e.engine !== 'pglite';
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

  it('logs the wake-up listener losing the database once and recovering once; the idle loops stay quiet', async () => {
    // The worker only looks at the queue once the memory index is open.
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
    const listener = 'listening for database wake-ups';
    if (listens) await eventually('the listener noticing the cut', () => linesWith(listener, from).length > 0);
    // The outage has to last for the repeats to happen; what is counted is the lines they made.
    await new Promise((r) => setTimeout(r, OUTAGE_MS));
    // The loops wait for wake-ups (their safety polls are 30 s apart): they may or may not meet the outage, but never repeat themselves.
    for (const loop of [listener, 'memory index worker', 'looking for due jobs', 'scanning workspace memory files']) {
      const lines = linesWith(loop, from);
      // One line per distinct error (a cut connection, then a refused one).
      if (lines.length > 3) throw new Error(`${lines.length} lines from "${loop}" in a ${OUTAGE_MS} ms outage:\n${lines.join('\n')}`);
    }
    await proxy.restore();
    if (!listens) return;
    await eventually('the listener recovering', () => linesWith(listener, from).some((l) => l.includes('recovered after')), 40_000);
    expect(linesWith(listener, from).filter((l) => l.includes('recovered after'))).toHaveLength(1);
  }, 90_000);
});
