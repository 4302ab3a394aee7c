import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

/** The MCP server the MCP client's tests talk to (test/fixtures/mcp-fixture.server.js). */
export const MCP_FIXTURE = join(__dirname, '../fixtures/mcp-fixture.server.js');

export interface HttpMcpFixture {
  url: string;
  port: number;
  process: ChildProcess;
  /** Resolves when the process is gone. */
  exited: Promise<void>;
  stop(): Promise<void>;
}

/** The fixture over Streamable HTTP on 127.0.0.1 (`port` 0 picks one; the same port again for a restart). */
export async function startHttpMcpFixture(port = 0, bearer?: string): Promise<HttpMcpFixture> {
  const child = spawn(process.execPath, [MCP_FIXTURE, '--http', String(port)], {
    env: { PATH: process.env.PATH, ...(bearer ? { FIXTURE_BEARER: bearer } : {}) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const bound = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`the MCP fixture exited (${code}) before listening: ${out}`)));
  });
  return {
    url: `http://127.0.0.1:${bound}/mcp`,
    port: bound,
    process: child,
    exited,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
