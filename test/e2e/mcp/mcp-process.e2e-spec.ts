import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { eventually } from '../../support/eventually';
import { GatewayProcess, spawnGateway } from '../../support/gateway-process';
import { MCP_FIXTURE } from '../../support/mcp-fixture';
import { createTestDatabase, TestDatabase } from '../../support/test-database';

/** Processes whose parent is `parent` and whose command line mentions `needle` (Linux /proc). */
function childrenOf(parent: number, needle: string): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        return ppid === parent && readFileSync(`/proc/${d}/cmdline`, 'utf8').includes(needle);
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The built gateway (dist/, as `nestclaw start` runs it) with a stdio MCP server. */
describe('an MCP server under the built gateway process', () => {
  let home: string;
  let db: TestDatabase;
  let gw: GatewayProcess | undefined;

  beforeAll(async () => {
    db = await createTestDatabase();
    home = mkdtempSync(join(tmpdir(), 'nestclaw-mcp-'));
    const config = { mcp: { servers: { fixture: { transport: 'stdio', command: process.execPath, args: [MCP_FIXTURE] } } } };
    writeFileSync(join(home, 'config.yaml'), stringify(config));
  });
  afterAll(async () => {
    await gw?.stop();
    await db.drop();
    rmSync(home, { recursive: true, force: true });
  });

  it('connects at start and stops the server with the gateway', async () => {
    const env = {
      PATH: process.env.PATH,
      NESTCLAW_HOME: home,
      NESTCLAW_TOKEN: 'test-token-mcp-process',
      ...(db.url ? { DATABASE_URL: db.url } : {}),
    };
    gw = await spawnGateway(env);
    const running = gw;
    await eventually(
      'mcp fixture connected in /doctor',
      async () => {
        const { checks } = (await (await running.api('/doctor')).json()) as { checks: { name: string; status: string; message: string }[] };
        return checks.find((c) => c.name === 'mcp fixture' && c.status === 'ok');
      },
      20_000,
    );
    const [server] = childrenOf(running.child.pid!, 'mcp-fixture.server.js');
    expect(server).toBeDefined();
    expect(await running.interrupt()).toBe(0);
    gw = undefined;
    await eventually('the MCP server process gone', () => !alive(server));
  }, 60_000);
});
