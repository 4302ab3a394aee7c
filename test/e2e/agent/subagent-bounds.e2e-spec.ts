import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { eventually } from '../../support/eventually';
import { Harness, startHarness } from '../../support/gateway-harness';

interface ApprovalRow {
  id: string;
  sessionId: string;
  tool: string;
  status: string;
}

/** Every file under `dir`, relative, for "the write never happened". */
const filesUnder = (dir: string): string[] =>
  existsSync(dir)
    ? readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => e.name)
    : [];

describe('subagent bounds', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({
      config: {
        agents: {
          default: { tools: ['spawn', 'file_write'], subagents: { allow_agents: ['*'], timeout: '1500ms' } },
          lean: { tools: ['spawn', 'current_time'], subagents: { allow_agents: ['*'] } },
          peer: { tools: ['current_time'] },
          powerful: { tools: ['current_time', 'file_write', 'http_request'] },
          delegator: { tools: ['spawn'], subagents: { allow_agents: ['powerful'] } },
        },
      },
    });
  });
  afterAll(() => h.stop());

  it('expires the pending approval when the subagent times out; approving it later is a 409 and the write never runs', async () => {
    const task = '[tool:file_write {\\"path\\":\\"late.txt\\",\\"content\\":\\"written after the parent gave up\\"}]';
    const res = await h.api('/v1/chat', { json: { message: `[tool:spawn {"task":"${task}"}]` } });
    const { reply } = (await res.json()) as { reply: string };
    const report = (JSON.parse(reply.replace(/^tool said: /, '')) as { subagent: { id: string; status: string } }).subagent;
    expect(report.status).toBe('timeout');

    const list = async () => ((await (await h.api('/v1/approvals')).json()) as { approvals: ApprovalRow[] }).approvals;
    const approval = await eventually('the subagent approval to be listed', async () =>
      (await list()).find((a) => a.sessionId.endsWith(report.id) && a.tool === 'file_write'),
    );
    expect(approval.status).toBe('expired');

    const decide = await h.api(`/v1/approvals/${approval.id}`, { json: { decision: 'approve' } });
    expect(decide.status).toBe(409);
    expect(((await decide.json()) as { error: { code: string } }).error.code).toBe('conflict');
    const [turn] = await h.query<{ status: string }>(
      `SELECT status FROM messages WHERE session_id = $1 AND role = 'user' ORDER BY seq LIMIT 1`,
      [approval.sessionId],
    );
    expect(turn.status).not.toBe('pending');
    expect(filesUnder(join(h.home, 'workspaces'))).not.toContain('late.txt');
  });

  const spawn = async (agentId: string, target: string, task: string) => {
    const res = await h.api('/v1/chat', { json: { agentId, message: `[tool:spawn {"task":"${task}","agentId":"${target}"}]` } });
    return ((await res.json()) as { reply: string }).reply;
  };

  it('refuses "*" reaching an agent with tools the parent lacks, naming them, and never runs the child', async () => {
    const reply = await spawn('lean', 'powerful', 'write the secret file');
    expect(reply).toBe(
      'tool said: error: agent "lean" may not start agent "powerful" through "*": it holds tools this agent lacks (file_write, http_request); ' +
        'name "powerful" in subagents.allow_agents to allow that',
    );
    expect(h.llm.requests.some((q) => q.body.messages.at(-1)?.content === 'write the secret file')).toBe(false);
  });

  it('lets "*" reach an agent with no more tools than the parent', async () => {
    const reply = await spawn('lean', 'peer', 'tell the time');
    expect(reply).toContain('"status":"ok"');
    expect(reply).toContain('echo: tell the time');
  });

  it('lets an agent named in allow_agents run with its own tools (the owner granted it)', async () => {
    const reply = await spawn('delegator', 'powerful', 'delegated work');
    expect(reply).toContain('"status":"ok"');
    expect(reply).toContain('echo: delegated work');
  });
});
