/**
 * `node -r ./scripts/ts-register.js test/bench/hostile-burst.bench.ts [--requests N]`: does a burst
 * of hostile input leave the gateway bigger? Starts the built gateway with npm start's runtime
 * settings (bin/runtime-settings.js) on a fresh database of the PostgreSQL server at 127.0.0.1:5432,
 * measures its RSS idle, sends N (default 2,000) malformed requests with 1–8 MB bodies over 8
 * connections to loopback, then as many WebSocket upgrades followed by a malformed frame, idles 10 s and measures again. Issue 23's goal: within 15 % of idle.
 * A benchmark, not a test: figures depend on the machine's load, printed with them.
 */
import { request } from 'node:http';
import { connect } from 'node:net';
import { loadavg } from 'node:os';
import {
  createDatabase,
  GATEWAY_ALLOCATOR_ENV,
  GATEWAY_NODE_FLAGS,
  memoryOf,
  runCleanups,
  sleep,
  startGatewayProcess,
  stopChild,
} from './bench-support';

const REQUESTS = Number(process.argv[process.argv.indexOf('--requests') + 1]) || 2000;
const MB = 1024 * 1024;

/** One POST of `size` bytes of not-JSON; resolves with the status (0: the connection was cut). */
function hostilePost(base: URL, size: number): Promise<number> {
  return new Promise((resolve) => {
    const req = request(new URL('/v1/chat/completions', base), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': String(size) },
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
    const chunk = Buffer.alloc(64 * 1024, '{"messages":[');
    let sent = 0;
    const write = () => {
      while (sent < size) {
        const part = chunk.subarray(0, Math.min(chunk.length, size - sent));
        sent += part.length;
        if (!req.write(part)) return void req.once('drain', write);
      }
      req.end();
    };
    write();
  });
}

/** A WebSocket upgrade to /ws followed at once by a frame with a reserved opcode and a 1 TB length; resolves when the server closes. */
function badWebSocketFrame(base: URL): Promise<void> {
  return new Promise((resolve) => {
    const socket = connect(Number(base.port), base.hostname);
    const frame = Buffer.concat([Buffer.from([0x8f, 0xff, 0, 0, 1, 0, 0, 0, 0, 0, 1, 2, 3, 4]), Buffer.alloc(64 * 1024, 7)]);
    socket.on('connect', () => {
      socket.write(
        'GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
          'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
      );
      socket.write(frame);
    });
    socket.on('data', () => undefined);
    socket.on('error', () => undefined);
    socket.on('close', () => resolve());
    // A server that never closes still ends the bench.
    socket.setTimeout(10_000, () => socket.destroy());
  });
}

async function main(): Promise<void> {
  const databaseUrl = await createDatabase('postgres://postgres@127.0.0.1:5432/postgres');
  const env = {
    PATH: process.env.PATH,
    DATABASE_URL: databaseUrl,
    NESTCLAW_READY_LINE: '1',
    ...GATEWAY_ALLOCATOR_ENV,
    NODE_OPTIONS: GATEWAY_NODE_FLAGS.join(' '),
  };
  const gw = await startGatewayProcess(env, 60_000);
  try {
    await sleep(5000);
    const idle = memoryOf(gw.pid);
    const load0 = loadavg()[0].toFixed(1);
    const statuses = new Map<number, number>();
    let next = 0;
    const worker = async () => {
      while (next < REQUESTS) {
        const i = next++;
        const status = await hostilePost(gw.url, MB + ((i * 7919) % (7 * MB)));
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    let frames = 0;
    const wsWorker = async () => {
      while (frames < REQUESTS) {
        frames++;
        await badWebSocketFrame(gw.url);
      }
    };
    await Promise.all(Array.from({ length: 8 }, wsWorker));
    const burst = memoryOf(gw.pid);
    await sleep(10_000);
    const after = memoryOf(gw.pid);
    const growth = ((after.rssMb - idle.rssMb) / idle.rssMb) * 100;
    console.log(`requests ${REQUESTS} and as many bad WebSocket frames; HTTP statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
    console.log(
      `RSS idle ${idle.rssMb} MB (load ${load0}), right after ${burst.rssMb} MB, after 10 s idle ${after.rssMb} MB (+${growth.toFixed(0)} %, load ${loadavg()[0].toFixed(1)}), peak ${after.hwmMb} MB`,
    );
  } finally {
    await stopChild(gw.child);
  }
}

main()
  .catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  })
  .finally(() => runCleanups());
