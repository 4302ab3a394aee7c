import { mcpSchema } from './mcp.schema';

describe('mcp: config', () => {
  it('fills the defaults: a 60 s timeout, all tools, every call approved by a human', () => {
    expect(mcpSchema.parse({ servers: { gh: { transport: 'stdio', command: 'npx' } } })).toEqual({
      servers: { gh: { transport: 'stdio', command: 'npx', args: [], env: {}, timeout: 60_000, tools: ['*'], require_approval: true } },
    });
    expect(mcpSchema.parse(undefined)).toEqual({ servers: {} });
  });

  it('reads an HTTP server with a bearer token and headers', () => {
    const parsed = mcpSchema.parse({
      servers: {
        web: { transport: 'http', url: 'https://mcp.example.com/mcp', bearer_token: 't', timeout: '5s', require_approval: ['write'] },
      },
    });
    expect(parsed.servers.web).toMatchObject({
      url: 'https://mcp.example.com/mcp',
      bearer_token: 't',
      headers: {},
      timeout: 5000,
      require_approval: ['write'],
    });
  });

  it('refuses server names with "_" (the namespace separator), dots or capitals', () => {
    for (const name of ['my_server', 'my.server', 'GitHub', '1st'])
      expect(mcpSchema.safeParse({ servers: { [name]: { transport: 'stdio', command: 'x' } } }).success).toBe(false);
  });

  it('refuses keys of the other transport, a relative cwd, bad env names and non-HTTP URLs', () => {
    const bad = [
      { transport: 'stdio', command: 'x', url: 'http://a' },
      { transport: 'stdio', command: 'x', cwd: 'rel' },
      { transport: 'stdio', command: 'x', env: { 'NOT-A-NAME': 'v' } },
      { transport: 'http', url: 'file:///etc/passwd' },
      { transport: 'sse', url: 'http://a' },
    ];
    for (const server of bad) expect(mcpSchema.safeParse({ servers: { s: server } }).success).toBe(false);
  });
});
