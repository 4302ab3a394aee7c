import { observeStatements } from '@nestclaw/db';
import { SECTION_OPEN } from '@nestclaw/memory';
import { currentLogContext } from '@nestclaw/observability';
import { eventually } from '../../support/eventually';
import { searchable } from '../memory/memory-spec.support';
import { Harness, startHarness } from '../../support/gateway-harness';

/**
 * The statement budget of a chat turn (an existing session, every default on: memory, its
 * transcript remembering, metrics), counted through the statement observer: every statement any
 * pool client starts while the turn's log context names its session. Not a timing: a count,
 * printed as a list when it is exceeded (docs/architecture.md, "Round trips of a plain turn").
 *
 * - A plain turn: open (with the active summaries, and the recalled memories' rows), the ledger row
 *   (`BEGIN` + INSERT as one query, then the COMMIT written with the request), close. Issue 22 ended
 *   at 11. A turn that recalls memories costs the same: the opening statement reads them.
 * - Remembering the turn and storing its answer are batched writes shared by the turns that finish
 *   together, run in their writers' own context: one statement each for an isolated turn (the
 *   remembering was four, in a transaction of its own, per turn).
 * - A read-only tool step adds the next model call's ledger row (two) and the step's progress row,
 *   which also writes the tool run's audit row (its own INSERT before).
 */
const TURN_BUDGET = 4;
const TOOL_STEP_BUDGET = 3;

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, 100);

describe('the statements of one chat turn', () => {
  let h: Harness;
  let sessionId: string;
  beforeAll(async () => {
    h = await startHarness({ config: { agents: { default: { tools: ['current_time'] } } } });
    const first = (await (await h.api('/v1/chat', { json: { message: 'opening the session' } })).json()) as { sessionId: string };
    sessionId = first.sessionId;
    await remembered('opening the session');
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

  /** Runs one turn; the statements started in its log context and those started outside any turn meanwhile. */
  async function countTurn(message: string, modelCalls: number, session = sessionId): Promise<{ own: string[]; elsewhere: string[] }> {
    const answers = async () => (await h.query<{ n: number }>(`SELECT count(*)::int AS n FROM llm_idempotency`))[0].n;
    const answersBefore = await answers();
    const own: string[] = [];
    const elsewhere: string[] = [];
    observeStatements((text) => {
      const context = currentLogContext()?.sessionId;
      if (context === session) own.push(oneLine(text));
      else if (context === undefined) elsewhere.push(oneLine(text));
      return undefined;
    });
    const res = await h.api('/v1/chat', { json: { message, sessionId: session } });
    expect(res.status).toBe(200);
    // The remembered row and the stored answer come last: once both are there, every statement of the turn has started.
    await remembered(message);
    await eventually('its answers stored', async () => (await answers()) >= answersBefore + modelCalls);
    observeStatements(undefined);
    return { own, elsewhere };
  }

  const check = (what: string, statements: string[], budget: number) => {
    process.stdout.write(`[turn statements] ${what}: ${statements.length}\n  ${statements.join('\n  ')}\n`);
    if (statements.length > budget)
      throw new Error(`${what}: ${statements.length} statements (budget ${budget}):\n${statements.join('\n')}`);
  };

  it(`a plain turn costs at most ${TURN_BUDGET} statements; remembering and the stored answer one batched statement each`, async () => {
    const { own, elsewhere } = await countTurn('a plain second turn', 1);
    check('plain turn', own, TURN_BUDGET);
    expect(own.length).toBeLessThanOrEqual(TURN_BUDGET);
    const remembering = elsewhere.filter((s) => s.includes('INSERT INTO memories'));
    const stored = elsewhere.filter((s) => s.startsWith('INSERT INTO llm_idempotency'));
    check('remembering the turn (batched)', remembering, 1);
    expect(remembering).toHaveLength(1);
    expect(stored).toHaveLength(1);
  });

  it(`a turn that recalls memories costs the same ${TURN_BUDGET}: the opening statement reads them`, async () => {
    // "opening the session" was remembered in beforeAll; a session whose history does not hold it recalls it.
    const other = (await (await h.api('/v1/chat', { json: { message: 'a second conversation' } })).json()) as { sessionId: string };
    await remembered('a second conversation');
    await searchable(h, 'opening the session', 'User: opening the session');
    const requestsBefore = h.llm.requests.length;
    const { own } = await countTurn('remind me about opening the session', 1, other.sessionId);
    check('turn with recalled memories', own, TURN_BUDGET);
    expect(own.length).toBeLessThanOrEqual(TURN_BUDGET);
    expect(own.some((s) => s.includes('SELECT c.id::text AS "chunkId"'))).toBe(false);
    const sent = h.llm.requests.slice(requestsBefore).map((r) => JSON.stringify(r.body.messages));
    expect(sent.some((m) => m.includes(SECTION_OPEN) && m.includes('User: opening the session'))).toBe(true);
  });

  it(`a read-only tool step adds at most ${TOOL_STEP_BUDGET}`, async () => {
    const { own } = await countTurn('what time is it [tool:current_time {}]', 2);
    check('turn with one tool step', own, TURN_BUDGET + TOOL_STEP_BUDGET);
    expect(own.length).toBeLessThanOrEqual(TURN_BUDGET + TOOL_STEP_BUDGET);
    // The tool run is still audited, by the step's progress statement.
    const audited = await h.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM audit_log WHERE session_id = $1 AND action = 'tool.execute' AND target LIKE 'current_time %'`,
      [sessionId],
    );
    expect(audited[0].n).toBe(1);
  });
});
