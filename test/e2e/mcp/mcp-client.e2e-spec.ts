import { ToolRegistry } from '@nestclaw/tool';
import { Harness, startHarness, TEST_TOKEN } from '../../support/gateway-harness';
import { eventually } from '../../support/eventually';
import { HttpMcpFixture, MCP_FIXTURE, startHttpMcpFixture } from '../../support/mcp-fixture';

interface Check {
  name: string;
  status: string;
  message: string;
}
interface Approval {
  id: string;
  tool: string;
  input: Record<string, unknown>;
  status: string;
}

const SERVER_SECRET = 'mcp-only-secret-4711';
const BEARER = 'mcp-bearer-token-0815';

/**
 * The MCP client through the real gateway and the fake model: a real MCP server built with the SDK,
 * once over stdio (started by the gateway) and once over Streamable HTTP (started here, so the test
 * can kill it and bring it back on the same port).
 */
describe('MCP servers (real gateway, real MCP server over stdio and Streamable HTTP)', () => {
  let h: Harness;
  let web: HttpMcpFixture;

  beforeAll(async () => {
    web = await startHttpMcpFixture(0, BEARER);
    h = await startHarness({
      env: { MCP_FIXTURE_SECRET: SERVER_SECRET, MCP_WEB_TOKEN: BEARER },
      config: {
        agents: { default: { tools: ['current_time', 'fixture.*', 'web__*'] } },
        // web says require_approval: false, so the general rules decide, and they name one of its tools.
        tools: {
          approval: { required: ['shell', 'file_write', 'http_request', 'web__pid'] },
          hooks: { redact: [{ pattern: 'hidden-[0-9]+' }], block: [{ tool: 'web__echo', pattern: 'forbidden', reason: 'not this' }] },
        },
        mcp: {
          servers: {
            fixture: {
              transport: 'stdio',
              command: process.execPath,
              args: [MCP_FIXTURE],
              env: { FIXTURE_VISIBLE: 'shown', FIXTURE_SECRET: '${MCP_FIXTURE_SECRET}' },
              timeout: '1500ms',
              require_approval: ['echo'],
            },
            web: { transport: 'http', url: web.url, bearer_token: '${MCP_WEB_TOKEN}', timeout: '1500ms', require_approval: false },
          },
        },
      },
    });
    await connected('fixture');
    await connected('web');
  });
  afterAll(async () => {
    await h?.stop();
    await web?.stop();
  });

  const mcpCheck = async (server: string) => {
    const { checks } = (await (await h.api('/doctor')).json()) as { checks: Check[] };
    return checks.find((c) => c.name === `mcp ${server}`);
  };
  const connected = (server: string, reconnects?: number) =>
    eventually(
      `MCP server ${server} connected${reconnects ? ` after ${reconnects} reconnect(s)` : ''}`,
      async () => {
        const c = await mcpCheck(server);
        return c?.status === 'ok' && (!reconnects || c.message.includes(`${reconnects} reconnect(s)`)) && c;
      },
      20_000,
    );
  const chat = async (message: string) => {
    const res = await h.api('/v1/chat', { json: { message } });
    return ((await res.json()) as { reply: string }).reply;
  };
  const call = (tool: string, args: Record<string, unknown> = {}) => chat(`go [tool:${tool} ${JSON.stringify(args)}]`);
  const offered = () => {
    const body = h.llm.requests[h.llm.requests.length - 1].body as { tools?: { function: { name: string } }[] };
    return (body.tools ?? []).map((t) => t.function.name);
  };

  it("offers each server's tools to the model as <server>__<tool>, whether the agent says server.* or server__*", async () => {
    await chat('hello');
    expect(offered()).toEqual(
      expect.arrayContaining([
        'current_time',
        'fixture__echo',
        'fixture__hang',
        'fixture__crash',
        'web__echo',
        'web__env',
        'web__add_tool',
      ]),
    );
  });

  it('calls a tool over Streamable HTTP with the bearer token from the environment, Chinese intact', async () => {
    expect(await call('web__echo', { text: '你好，世界 🌏' })).toBe('tool said: echo: 你好，世界 🌏');
  });

  it('holds a call the server entry marks for approval until a human approves it, then runs it over stdio', async () => {
    const reply = call('fixture__echo', { text: '需要批准' });
    const approval = await eventually('a pending approval for fixture__echo', async () => {
      const { approvals } = (await (await h.api('/v1/approvals?status=pending')).json()) as { approvals: Approval[] };
      return approvals.find((a) => a.tool === 'fixture__echo');
    });
    expect(approval.input).toEqual({ text: '需要批准' });
    const decided = await h.api(`/v1/approvals/${approval.id}`, { json: { decision: 'approve' } });
    expect(decided.status).toBe(201);
    expect(await reply).toBe('tool said: echo: 需要批准');
  });

  it("holds an HTTP server's tool that tools.approval.required names, and tells the model a denial", async () => {
    const reply = call('web__pid');
    const approval = await eventually('a pending approval for web__pid', async () => {
      const { approvals } = (await (await h.api('/v1/approvals?status=pending')).json()) as { approvals: Approval[] };
      return approvals.find((a) => a.tool === 'web__pid');
    });
    await h.api(`/v1/approvals/${approval.id}`, { json: { decision: 'deny' } });
    expect(await reply).toBe('tool said: denied: owner refused this web__pid call');
  });

  it('applies the configured hooks and the output cap to MCP tools', async () => {
    expect(await call('web__echo', { text: 'forbidden words' })).toBe('tool said: error: not this');
    const redacted = await call('web__echo', { text: 'key hidden-1234' });
    expect(redacted).toContain('[redacted]');
    expect(redacted).not.toContain('hidden-1234');
    const long = await call('web__echo', { text: 'words '.repeat(3_000) });
    expect(long).toMatch(/\[output truncated: \d+ more characters\]$/);
  });

  it('stores an answer with a NUL character (PostgreSQL refuses U+0000) without it, instead of failing the turn', async () => {
    const res = await h.api('/v1/chat', { json: { message: 'go [tool:web__nul {}]' } });
    expect({ status: res.status, body: await res.json() }).toEqual({
      status: 200,
      body: expect.objectContaining({ reply: 'tool said: nul: beforeafter' }),
    });
    const [row] = await h.query<{ content: string }>(`SELECT content FROM messages WHERE role = 'tool' AND tool_name = 'web__nul'`);
    expect(row.content).toBe('nul: beforeafter');
  });

  it('stops reading an HTTP answer past 10 MB (as the stdio transport does): the call fails and the next one works', async () => {
    // The SDK reads a JSON answer whole and an SSE answer's event whole; past the cap the stream errors,
    // and the call ends as failed (or, when the SDK only reports the broken stream, timed out).
    expect(await call('web__flood')).toMatch(/^tool said: error: MCP server "web" (failed on flood|did not answer flood)/);
    expect(await call('web__echo', { text: 'after the flood' })).toBe('tool said: echo: after the flood');
  });

  it('records MCP calls in the audit log like any tool', async () => {
    const rows = await h.query<{ target: string; outcome: string }>(
      `SELECT target, outcome FROM audit_log WHERE action = 'tool.execute' AND target LIKE 'web__echo %'`,
    );
    expect(rows.length).toBeGreaterThan(0);
    expect(rows[0].outcome).toBe('ok');
  });

  it("gives a stdio server only PATH, HOME and its entry's env: no gateway secret", async () => {
    const reply = await call('fixture__env');
    const env = JSON.parse(reply.replace(/^tool said: /, '')) as Record<string, string>;
    expect(Object.keys(env).sort()).toEqual(['FIXTURE_SECRET', 'FIXTURE_VISIBLE', 'HOME', 'PATH']);
    expect(env).toMatchObject({ FIXTURE_VISIBLE: 'shown', FIXTURE_SECRET: SERVER_SECRET });
    expect(reply).not.toContain(TEST_TOKEN);
    expect(reply).not.toContain('sk-test');
    expect(reply).not.toContain(BEARER);
  });

  it('picks up tools/list_changed over stdio and over HTTP: the new tools are offered and callable', async () => {
    const registry = h.gateway.app.get(ToolRegistry);
    expect(await call('fixture__add_tool', { name: 'late' })).toBe('tool said: added late');
    expect(await call('web__add_tool', { name: 'later' })).toBe('tool said: added later');
    await eventually('fixture__late and web__later in the registry', () =>
      ['fixture__late', 'web__later'].every((n) => registry.names().includes(n)),
    );
    expect(await call('fixture__late')).toBe('tool said: late here');
    expect(offered()).toEqual(expect.arrayContaining(['fixture__late', 'web__later']));
    expect(await call('web__later')).toBe('tool said: later here');
  });

  it('times a hung call out as a tool error while another turn completes', async () => {
    let hungDone = 0;
    const hung = call('web__hang').then((r) => ((hungDone = Date.now()), r));
    const quick = await call('fixture__pid');
    const quickDone = Date.now();
    expect(quick).toMatch(/^tool said: \d+$/);
    expect(await hung).toBe('tool said: error: MCP server "web" did not answer hang within 1500 ms (the call was cancelled)');
    expect(quickDone).toBeLessThan(hungDone);
    // The server and the gateway are both still fine.
    expect(await call('web__echo', { text: 'still here' })).toBe('tool said: echo: still here');
  });

  it('times a hung stdio call out the same way, and the server answers the next call', async () => {
    const hung = call('fixture__hang');
    expect(await call('web__echo', { text: 'meanwhile' })).toBe('tool said: echo: meanwhile');
    expect(await hung).toBe('tool said: error: MCP server "fixture" did not answer hang within 1500 ms (the call was cancelled)');
    expect(await call('fixture__late')).toBe('tool said: late here');
  });

  it('restarts a stdio server that died, with a new process', async () => {
    const before = await call('fixture__pid');
    expect(await call('fixture__crash')).toBe('tool said: bye');
    await connected('fixture', 1);
    const after = await call('fixture__pid');
    expect(after).toMatch(/^tool said: \d+$/);
    expect(after).not.toBe(before);
    expect(await call('fixture__late')).toBe('tool said: error: unknown tool "fixture__late"');
  });

  it('reconnects to an HTTP server that went away once it is back on its address', async () => {
    expect(await call('web__crash')).toBe('tool said: bye');
    await web.exited;
    const down = await eventually('web not connected', async () =>
      (await mcpCheck('web'))?.status === 'warn' ? await mcpCheck('web') : undefined,
    );
    expect(down!.message).toContain('http: http://127.0.0.1');
    expect(await call('web__echo', { text: 'x' })).toMatch(/^tool said: error: MCP server "web" is not connected/);
    web = await startHttpMcpFixture(web.port, BEARER);
    await connected('web', 1);
    expect(await call('web__echo', { text: '回来了' })).toBe('tool said: echo: 回来了');
  });

  it('shows each server in /doctor without its secrets', async () => {
    const report = await (await h.api('/doctor')).text();
    expect(report).toContain('mcp fixture');
    expect(report).toContain('mcp web');
    expect(report).not.toContain(BEARER);
    expect(report).not.toContain(SERVER_SECRET);
  });
});
