import { join } from 'node:path';
import { configSchema } from '@nestclaw/config';
import { ToolError } from '@nestclaw/tool';
import { McpConnection } from './mcp-connection';

const FIXTURE = join(__dirname, '../../../../test/fixtures/mcp-fixture.server.js');
const stdio = (command: string, args: string[] = []) =>
  configSchema.parse({ mcp: { servers: { s: { transport: 'stdio', command, args, timeout: '800ms' } } } }).mcp.servers.s;

async function until<T>(what: string, f: () => T | undefined | false, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** One connection against the real fixture server over stdio (no gateway). */
describe('McpConnection (stdio, real SDK server)', () => {
  const open: McpConnection[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((c) => c.stop()));
  });
  const connect = (config: ReturnType<typeof stdio>) => {
    const c = new McpConnection('s', config, () => undefined);
    open.push(c);
    c.start();
    return c;
  };

  it('lists the tools and calls one, Chinese intact', async () => {
    const c = connect(stdio(process.execPath, [FIXTURE]));
    await until('connected', () => c.status().state === 'connected');
    expect(c.listed().map((t) => t.name)).toEqual(expect.arrayContaining(['echo', 'hang', 'crash']));
    expect(await c.call('echo', { text: '汉字' }, new AbortController().signal)).toBe('echo: 汉字');
  });

  it('keeps trying a server that cannot start, and says why to a call', async () => {
    const c = connect(stdio('/nonexistent/mcp-server'));
    await until('a failed attempt', () => c.status().lastError);
    expect(c.status()).toMatchObject({ state: 'connecting', tools: 0 });
    expect(c.status().lastError).toContain('ENOENT');
    await expect(c.call('echo', {}, new AbortController().signal)).rejects.toThrow(ToolError);
  });

  it('cancels a call when the turn is cancelled', async () => {
    const c = connect(stdio(process.execPath, [FIXTURE]));
    await until('connected', () => c.status().state === 'connected');
    const abort = new AbortController();
    const call = c.call('hang', {}, abort.signal);
    abort.abort();
    await expect(call).rejects.toThrow('cancelled');
  });
});
