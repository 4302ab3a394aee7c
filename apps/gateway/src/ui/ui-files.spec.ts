import fastifyStatic from '@fastify/static';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { FastifyInstance } from 'fastify';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sendIndex } from './ui-files';

describe('the control UI index (sendIndex)', () => {
  let root: string;
  let app: FastifyInstance;
  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), 'nestclaw-ui-'));
    app = new FastifyAdapter().getInstance();
    await app.register(fastifyStatic, { root, serve: false });
    app.get('/', (req, reply) => sendIndex(req, reply, root));
  });
  afterEach(async () => {
    await app.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('answers a browser with a 503 page naming `npm run build` when dist/ui was never built', async () => {
    const res = await app.inject({ url: '/', headers: { accept: 'text/html,application/xhtml+xml' } });
    expect(res.statusCode).toBe(503);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toContain('run `npm run build`');
  });

  it('answers an API client with the 503 error body', async () => {
    const res = await app.inject({ url: '/', headers: { accept: 'application/json' } });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({ error: { code: 'ui_not_built', message: expect.stringContaining('npm run build') } });
  });

  it('serves index.html uncached once it is built, without restarting', async () => {
    expect((await app.inject({ url: '/' })).statusCode).toBe(503);
    writeFileSync(join(root, 'index.html'), '<!doctype html><div id="app"></div>');
    const res = await app.inject({ url: '/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.body).toContain('<div id="app"></div>');
  });
});
