import { createServer, Agent, request, Server, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeDraining } from './drain-on-close';

/** A real HTTP server on 127.0.0.1 with a keep-alive timeout far beyond the test's (Fastify's is 72 s). */
async function server(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ server: Server; port: number }> {
  const s = createServer(handler);
  s.keepAliveTimeout = 120_000;
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return { server: s, port: (s.address() as AddressInfo).port };
}

const closeServer = (s: Server) => () => new Promise<void>((resolve) => s.close(() => resolve()));

/** GET / on a keep-alive agent; resolves with the body once the response ends. */
function get(port: number, agent: Agent): Promise<string> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path: '/', agent }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve(body));
      res.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

describe('closeDraining', () => {
  it('closes a keep-alive connection whose response finished after the close began, instead of waiting out its keep-alive', async () => {
    let answer!: () => void;
    const { server: s, port } = await server((_req, res) => (answer = () => res.end('late')));
    const agent = new Agent({ keepAlive: true });
    const reply = get(port, agent);
    await new Promise<void>((r) => s.once('request', () => r()));
    // server.close() alone would close the connections idle now (none) and then wait 120 s for this one.
    const closed = closeDraining(s, closeServer(s), 60_000);
    await new Promise((r) => setTimeout(r, 100));
    answer();
    expect(await reply).toBe('late');
    await closed; // within the unit tier's 15 s timeout, not the 120 s keep-alive
    agent.destroy();
  });

  it('cuts a connection still busy at the deadline (a client that never finishes its request)', async () => {
    const { server: s, port } = await server(() => undefined); // never answers
    const agent = new Agent({ keepAlive: true });
    const reply = get(port, agent).catch((e: NodeJS.ErrnoException) => e.code);
    await new Promise<void>((r) => s.once('request', () => r()));
    await closeDraining(s, closeServer(s), 300);
    expect(await reply).toBe('ECONNRESET');
    agent.destroy();
  });
});
