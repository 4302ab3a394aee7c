import { observeStatements } from '@nestclaw/db';
import { currentLogContext } from '@nestclaw/observability';
import { eventually } from '../../support/eventually';
import { Harness, startHarness } from '../../support/gateway-harness';

/**
 * The statement budget of a plain chat turn (an existing session, every default on: memory, its
 * transcript remembering, metrics; no tool call), counted through the statement observer: every
 * statement any pool client starts while the turn's log context names its session. Not a timing:
 * a count, printed as a list when it is exceeded. Measured at issue 22's end: 11 (docs/architecture.md
 * lists them); issue 23's target is 4, and this number only goes down.
 */
const TURN_BUDGET = 11;

describe('the statements of one plain chat turn', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    observeStatements(undefined);
    await h?.stop();
  });

  const remembered = (text: string) =>
    eventually(`the turn "${text}" remembered`, async () => {
      const rows = await h.query<{ n: number }>(`SELECT count(*)::int AS n FROM memories WHERE content LIKE $1`, [`%${text}%`]);
      return rows[0].n > 0;
    });

  it(`costs at most ${TURN_BUDGET} statements, remembering included`, async () => {
    const first = (await (await h.api('/v1/chat', { json: { message: 'opening the session' } })).json()) as { sessionId: string };
    await remembered('opening the session');
    const seen: string[] = [];
    observeStatements((text) => {
      if (currentLogContext()?.sessionId === first.sessionId) seen.push(text.replace(/\s+/g, ' ').trim().slice(0, 100));
      return undefined;
    });
    const res = await h.api('/v1/chat', { json: { message: 'a plain second turn', sessionId: first.sessionId } });
    expect(res.status).toBe(200);
    // Remembering the turn ends after the reply: its row being there means every statement of it started.
    await remembered('a plain second turn');
    observeStatements(undefined);
    if (seen.length > TURN_BUDGET) throw new Error(`${seen.length} statements (budget ${TURN_BUDGET}):\n${seen.join('\n')}`);
    process.stdout.write(`[turn statements] ${seen.length}:\n  ${seen.join('\n  ')}\n`);
    expect(seen.length).toBeLessThanOrEqual(TURN_BUDGET);
  });
});
