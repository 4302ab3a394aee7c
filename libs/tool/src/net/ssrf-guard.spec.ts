import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { guardedRequest } from './guarded-http.client';
import { Resolver, SsrfGuard } from './ssrf-guard';

/** A fake DNS: names map to whatever the test says. */
const fakeDns =
  (table: Record<string, string[]>): Resolver =>
  async (host) => {
    const hit = table[host];
    if (!hit) throw new Error(`ENOTFOUND ${host}`);
    return hit;
  };

const dns = fakeDns({
  'public.example': ['93.184.216.34'],
  'internal.example': ['10.1.2.3'],
  'sneaky.example': ['93.184.216.34', '192.168.1.10'],
  localhost: ['127.0.0.1', '::1'],
  'metadata.example': ['169.254.169.254'],
});

describe('SsrfGuard', () => {
  const guard = new SsrfGuard({ allowHosts: [], resolve: dns });

  it.each([
    ['http://127.0.0.1/', 'private, loopback or link-local'],
    ['http://127.1.2.3:8080/x', 'private, loopback or link-local'],
    ['http://10.0.0.1/', 'private, loopback or link-local'],
    ['http://10.255.255.254/', 'private, loopback or link-local'],
    ['http://172.16.0.1/', 'private, loopback or link-local'],
    ['http://192.168.0.1/', 'private, loopback or link-local'],
    ['http://169.254.169.254/latest/meta-data/', 'private, loopback or link-local'],
    ['http://[::1]/', 'private, loopback or link-local'],
    ['http://[::ffff:127.0.0.1]/', 'private, loopback or link-local'],
    ['http://[::127.0.0.1]/', 'private, loopback or link-local'],
    ['http://[::7f00:1]/', 'private, loopback or link-local'],
    ['http://[::10.0.0.1]/', 'private, loopback or link-local'],
    ['http://[::169.254.169.254]/', 'private, loopback or link-local'],
    ['http://[::]/', 'private, loopback or link-local'],
    ['http://[fd00::1]/', 'private, loopback or link-local'],
    ['http://0.0.0.0/', 'private, loopback or link-local'],
    ['http://localhost/', 'localhost resolves to 127.0.0.1'],
    ['http://internal.example/', 'internal.example resolves to 10.1.2.3'],
    ['http://sneaky.example/', 'resolves to 192.168.1.10'],
    ['http://metadata.example/', 'resolves to 169.254.169.254'],
    ['file:///etc/passwd', 'only http and https'],
  ])('refuses %s', async (url, why) => {
    await expect(guard.check(new URL(url))).rejects.toThrow(why);
  });

  it('passes a public address and pins it', async () => {
    await expect(guard.check(new URL('https://public.example/a'))).resolves.toBe('93.184.216.34');
  });

  it('lets a configured host through even when it is private', async () => {
    const g = new SsrfGuard({ allowHosts: ['internal.example'], resolve: dns });
    await expect(g.check(new URL('http://internal.example/'))).resolves.toBe('10.1.2.3');
  });
});

describe('guardedRequest', () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/redirect-private') {
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' });
        return res.end();
      }
      if (req.url === '/redirect-name') {
        res.writeHead(302, { location: `http://internal.example:${port}/secret` });
        return res.end();
      }
      if (req.url === '/redirect-ok') {
        res.writeHead(302, { location: '/ok' });
        return res.end();
      }
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(`hello from ${req.url} host=${req.headers.host}`);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  // The fake server is on loopback, so it is reached through an allowed host name.
  const options = (allowHosts: string[]) => ({
    guard: new SsrfGuard({ allowHosts, resolve: fakeDns({ 'fake.test': ['127.0.0.1'], 'internal.example': ['10.1.2.3'] }) }),
    timeoutMs: 3000,
    maxRedirects: 3,
    maxBodyBytes: 1000,
  });

  it('refuses 127.0.0.1 directly', async () => {
    await expect(guardedRequest({ method: 'GET', url: `http://127.0.0.1:${port}/` }, options([]))).rejects.toThrow('private');
  });

  it('reaches an allowed host and follows a same-host redirect', async () => {
    const res = await guardedRequest({ method: 'GET', url: `http://fake.test:${port}/redirect-ok` }, options(['fake.test']));
    expect(res.status).toBe(200);
    expect(res.body).toBe(`hello from /ok host=fake.test:${port}`);
    expect(res.chain).toHaveLength(2);
  });

  it('refuses a redirect to a link-local address', async () => {
    await expect(
      guardedRequest({ method: 'GET', url: `http://fake.test:${port}/redirect-private` }, options(['fake.test'])),
    ).rejects.toThrow('169.254.169.254 is a private, loopback or link-local address');
  });

  it('refuses a redirect to a name resolving to a private address', async () => {
    await expect(guardedRequest({ method: 'GET', url: `http://fake.test:${port}/redirect-name` }, options(['fake.test']))).rejects.toThrow(
      'internal.example resolves to 10.1.2.3',
    );
  });
});
