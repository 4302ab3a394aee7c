import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer, IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { IntDatabase, openIntDatabase, uniqueId } from '@nestclaw/testing';
import { TurnRepository } from '../session/turn.repository';

const ROOT = resolve(__dirname, '../../../..');

/** A model endpoint that notes each complete request (headers and body) it received. */
class RecordingServer {
  readonly requests: { id: string | undefined; bytes: number }[] = [];
  private readonly server: Server = createServer((req: IncomingMessage, res) => {
    let bytes = 0;
    req.on('data', (c: Buffer) => (bytes += c.length));
    req.on('end', () => {
      this.requests.push({ id: req.headers['x-client-request-id'] as string | undefined, bytes });
      res.end('{}');
    });
  });

  async start(): Promise<string> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1/chat/completions`;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}

describe('TurnLedger with nodeFetch across kill -9 (real database, real sockets)', () => {
  let int: IntDatabase;
  let sessions: TurnRepository;
  let server: RecordingServer;
  let url: string;
  beforeAll(async () => {
    int = await openIntDatabase();
    sessions = new TurnRepository(int.db);
    server = new RecordingServer();
    url = await server.start();
  });
  afterAll(async () => {
    await server?.stop();
    await int?.close();
  });

  /** Runs the child (test/support/gated-send.child.ts) for a fresh turn; resolves with the turn's rows once it died. */
  async function killedAt(moment: 'after-send' | 'before-commit') {
    const sessionId = uniqueId('s');
    const turnId = randomUUID();
    await sessions.openTurn({
      sessionId,
      turnId,
      agentId: 'main',
      content: 'hi',
      channel: 'api',
      create: true,
      historyLimit: 10,
      replica: 'replica-under-test',
    });
    const child = spawn(
      process.execPath,
      [
        '-r',
        join(ROOT, 'scripts/ts-register.js'),
        join(ROOT, 'test/support/gated-send.child.ts'),
        int.db.url,
        sessionId,
        turnId,
        url,
        moment,
      ],
      { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] },
    );
    const signal = await new Promise<NodeJS.Signals | null>((r) => child.on('exit', (_code, s) => r(s)));
    expect(signal).toBe('SIGKILL');
    // The server reads what the kernel already holds; give it a moment to finish reading.
    await new Promise((r) => setTimeout(r, 300));
    const { rows } = await int.db.query<{ id: string; status: string }>(`SELECT id::text, status FROM llm_calls WHERE turn_id = $1`, [
      turnId,
    ]);
    return rows;
  }

  it('leaves the row and the whole request when killed at the first moment after the gated send', async () => {
    for (let i = 0; i < 3; i++) {
      const before = server.requests.length;
      const rows = await killedAt('after-send');
      expect(rows).toEqual([{ id: expect.any(String), status: 'started' }]);
      // The warm-up request, then the gated one in full (a 64 KiB prompt) with its row's id.
      const gated = server.requests.slice(before).filter((r) => r.id !== undefined);
      expect(gated).toEqual([{ id: `nestclaw-call-${rows[0].id}`, bytes: expect.any(Number) }]);
      expect(gated[0].bytes).toBeGreaterThan(64 * 1024);
    }
  }, 120_000);

  it('leaves neither when killed after the row was written but before its commit', async () => {
    const before = server.requests.length;
    const rows = await killedAt('before-commit');
    expect(rows).toEqual([]);
    expect(server.requests.slice(before).filter((r) => r.id !== undefined)).toEqual([]);
  }, 60_000);
});
