import { observeStatements } from '@nestclaw/db';
import { Harness, startHarness } from '../../support/gateway-harness';

/**
 * How long the idle gateway is watched: past every loop's safety poll (30 s) and two turns of the
 * inbound-pending gauge (15 s), so each loop's slow look is counted. Budget: one statement a second.
 */
const WATCH_MS = 31_000;
/**
 * Start-up work (the scheduler's first tick, the memory index catching up) runs in the gateway's first
 * seconds, once: it is not idle traffic. On a slow host it spilled into the window (32 statements).
 */
const SETTLE_MS = 5_000;

/**
 * Issue 23: an idle gateway (every default on: memory, its worker and file scan, the scheduler)
 * sends at most one PostgreSQL round trip a second. Counted through the statement observer (every
 * statement of every pool client), not timed; the list is printed when the budget is exceeded.
 */
describe('an idle gateway and its database', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    observeStatements(undefined);
    await h?.stop();
  });

  it('sends at most one statement a second while nothing happens', async () => {
    const seen: string[] = [];
    const from = Date.now() + SETTLE_MS;
    observeStatements((text) => {
      if (Date.now() >= from) seen.push(text.replace(/\s+/g, ' ').trim().slice(0, 120));
      return undefined;
    });
    // A count over a fixed window, not a wait for an outcome: what is measured is the window itself.
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS + WATCH_MS));
    observeStatements(undefined);
    const budget = WATCH_MS / 1000;
    const counts = new Map<string, number>();
    for (const s of seen) counts.set(s, (counts.get(s) ?? 0) + 1);
    const list = [...counts].map(([s, n]) => `${n} × ${s}`).join('\n');
    process.stdout.write(`[idle round trips] ${seen.length} statements in ${WATCH_MS / 1000} s:\n${list}\n`);
    if (seen.length > budget) {
      throw new Error(`${seen.length} statements in ${WATCH_MS / 1000} s of idle (budget ${budget}):\n${list}`);
    }
    expect(seen.length).toBeLessThanOrEqual(budget);
  });
});
