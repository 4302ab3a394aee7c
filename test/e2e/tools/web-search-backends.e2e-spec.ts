import { configSchema, ToolsConfig } from '@nestclaw/config';
import { ToolRuntime, WebSearchTool } from '@nestclaw/tool';
import { FakeSearchServer } from '../../fixtures/fake-search.server';

describe('web_search backends (against a fake server)', () => {
  const server = new FakeSearchServer();
  beforeAll(() => server.start());
  afterAll(() => server.stop());

  const tool = (backend: unknown) => {
    const tools = configSchema.parse({ tools: { search: { backend } } }).tools as ToolsConfig;
    return new WebSearchTool(() => tools);
  };
  const run = (backend: unknown, query: string, count?: number) =>
    tool(backend).execute({} as ToolRuntime, { query, count }, new AbortController().signal);

  it('queries a keyless SearXNG instance', async () => {
    const out = await run({ kind: 'searxng', url: server.url }, 'nest claw', 2);
    expect(out).toBe(
      '1. SearX nest claw 1\n   https://searx.example/1\n   snippet 1\n2. SearX nest claw 2\n   https://searx.example/2\n   snippet 2',
    );
  });

  it('queries Brave with its key', async () => {
    const out = await run({ kind: 'brave', url: server.url, api_key: 'brave-key' }, 'cats');
    expect(out).toContain('1. Brave cats');
  });

  it('queries Tavily with its key', async () => {
    const out = await run({ kind: 'tavily', url: server.url, api_key: 'tavily-key' }, 'dogs');
    expect(out).toContain('1. Tavily dogs');
  });

  it('reports a rejected key as a tool error', async () => {
    await expect(run({ kind: 'brave', url: server.url, api_key: 'wrong' }, 'x')).rejects.toThrow('Brave Search answered HTTP 401');
  });

  it('says when no backend is configured', async () => {
    await expect(run(undefined, 'x')).rejects.toThrow('no search backend is configured');
  });
});
