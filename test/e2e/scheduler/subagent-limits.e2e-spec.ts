import { Harness, startHarness } from '../../support/gateway-harness';

/** Subagent limits are read from subagent_runs rows, so a restart of the gateway does not reset them. */
describe('subagent limits across a restart', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({
      config: { agents: { default: { tools: ['current_time', 'spawn'], subagents: { allow_agents: ['*'], max_per_session: 2 } } } },
    });
  });
  afterAll(() => h.stop());

  const chat = async (message: string, sessionId?: string) =>
    (await (await h.api('/v1/chat', { json: { message, ...(sessionId ? { sessionId } : {}) } })).json()) as {
      reply: string;
      sessionId: string;
    };

  it('still refuses a session that used its subagents before the restart, and links each child to its parent', async () => {
    const first = await chat('[tool:spawn {"task":"one"}]');
    await chat('[tool:spawn {"task":"two"}]', first.sessionId);
    await h.restart();
    const third = await chat('[tool:spawn {"task":"three"}]', first.sessionId);
    expect(third.reply).toBe('tool said: error: this session already started 2 subagents (limit 2)');
    const children = await h.query<{ status: string; child_session_id: string }>(
      `SELECT status, child_session_id FROM subagent_runs WHERE parent_session_id = $1 ORDER BY started_at`,
      [first.sessionId],
    );
    expect(children.map((c) => c.status)).toEqual(['ok', 'ok']);
    expect(children.every((c) => /^agent:default:subagent:[0-9a-f-]{36}$/.test(c.child_session_id))).toBe(true);
    // Another session has its own allowance.
    const other = await chat('[tool:spawn {"task":"elsewhere"}]');
    expect(other.reply).toContain('"status":"ok"');
  });
});
