import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../support/eventually';
import { GatewayProcess, spawnGateway } from '../support/gateway-process';

/** The messages of the JSON log lines in `text`; other lines (the token banner, native libraries) as they are. */
const lines = (text: string) => text.split('\n').filter((l) => l.trim() !== '');
const messageOf = (line: string): string => {
  try {
    return (JSON.parse(line) as { msg: string }).msg;
  } catch {
    return line;
  }
};
/** A warning or an error: pino level ≥ 40, or a non-JSON line that says so (a stack, a native library's WARN). */
const isWarningOrError = (line: string): boolean => {
  try {
    return (JSON.parse(line) as { level: number }).level >= 40;
  } catch {
    return /warn|error|\bat .+:\d+/i.test(line);
  }
};

/**
 * What a newcomer sees running `npm start` on a fresh home (no token, no model, the embedded
 * database) at the default log level, and when pressing Ctrl-C.
 */
describe('the gateway process starting and stopping as a newcomer runs it', () => {
  let home: string;
  let gw: GatewayProcess | undefined;
  const env = () => ({ PATH: process.env.PATH, NESTCLAW_HOME: home });

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'nestclaw-startup-'));
    gw = await spawnGateway(env(), 50_000, { logLevel: 'log', ownProcessGroup: true });
  }, 60_000);
  afterAll(async () => {
    await gw?.kill9();
    rmSync(home, { recursive: true, force: true });
  });

  it('prints a short summary: address, database, model, channels, sandbox, memory', async () => {
    // The memory index is built in the background after ready: its end proves LanceDB has written.
    await eventually('the first memory index build', () => gw!.output().includes('memory index rebuilt'), 30_000);
    const messages = lines(gw!.output()).map(messageOf);
    expect(messages).toEqual(
      expect.arrayContaining([
        `listening on ${gw!.url}`,
        `database: embedded PostgreSQL in ${join(home, 'postgres')}`,
        expect.stringMatching(/^no model configured: set OPENAI_API_KEY .* or add models: to config\.yaml$/),
        'channels: none (HTTP, WebSocket and the OpenAI-compatible API only)',
        expect.stringMatching(/^sandbox: /),
        'memory: on, keyword recall (no embedding model), remembers finished turns (memory.transcripts: false turns that off)',
        expect.stringMatching(/^nestclaw ready on /),
      ]),
    );
    // Nest's bootstrap chatter is at debug now.
    expect(messages.filter((m) => /^Mapped \{|dependencies initialized|^\w+Controller \{/.test(m))).toEqual([]);
    // LanceDB's "No existing dataset …, it will be created" is a normal first start, not a warning.
    expect(gw!.output()).not.toMatch(/lance::/);
    // The token banner tells the truth: the token can be shown again.
    expect(gw!.output()).toContain('`nestclaw token` prints it again');
    expect(gw!.output()).not.toContain('shown only now');
    expect(messages.length).toBeLessThan(30);
  });

  it('stops quietly on Ctrl-C: a stopping line, a stopped line, no warning and exit code 0', async () => {
    const before = gw!.output().length;
    // To the whole process group, as a terminal sends it: the embedded PostgreSQL server gets it too.
    const code = await gw!.interrupt();
    const stopping = lines(gw!.output().slice(before));
    expect(stopping.filter(isWarningOrError)).toEqual([]);
    expect(stopping.map(messageOf)).toEqual(['stopping (SIGINT) ...', 'stopped']);
    expect(code).toBe(0);
  });
});

describe('a port already in use', () => {
  let home: string;
  let holder: Server;
  let port: number;

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'nestclaw-port-'));
    holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    port = (holder.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => holder.close(resolve));
    rmSync(home, { recursive: true, force: true });
  });

  it('is one line naming the address and what to do, and exit code 1, not a stack trace', async () => {
    const env = { PATH: process.env.PATH, NESTCLAW_HOME: home, NESTCLAW_TOKEN: 'test-token-0123456789' };
    const failure = await spawnGateway(env, 50_000, { port, logLevel: 'error' }).then(
      () => undefined,
      (e: Error) => e.message,
    );
    expect(failure).toContain('gateway exited with 1 before it was ready');
    const said = lines(failure!.slice(failure!.indexOf('\n') + 1));
    expect(said).toEqual([
      `nestclaw could not start: 127.0.0.1:${port} is already in use: stop the other process using it (is nestclaw already running?), or choose another port with PORT=<port>, --port <port> or server.port in config.yaml`,
    ]);
  });
});
