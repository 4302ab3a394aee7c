import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { stringify } from 'yaml';
import { FakeOpenAiServer } from '../../fixtures/fake-openai.server';
import { clusterDatabase } from '../../support/cluster-database';
import { GatewayProcess, spawnGateway } from '../../support/gateway-process';
import type { TestDatabase } from '../../support/test-database';

const TOKEN = 'cluster-token-0123456789';

/**
 * Issue 25, item 2 across replicas: a web session opened on one replica works on another (it lives in
 * PostgreSQL), and ending it on one (sign-out, revoked token) closes its WebSocket on the other at once
 * (`web_session_ended` over LISTEN/NOTIFY).
 */
describe('web sessions on two replicas sharing PostgreSQL', () => {
  let db: TestDatabase;
  let llm: FakeOpenAiServer;
  let a: GatewayProcess;
  let b: GatewayProcess;
  const homes: string[] = [];

  const replica = async (): Promise<GatewayProcess> => {
    const home = mkdtempSync(join(tmpdir(), 'nestclaw-cluster-'));
    homes.push(home);
    const config = { models: { fake: { provider: 'openai-compatible', base_url: llm.url, api_key: 'sk-test', model: 'fake-model' } } };
    writeFileSync(join(home, 'config.yaml'), stringify(config));
    return spawnGateway({ PATH: process.env.PATH, NESTCLAW_HOME: home, NESTCLAW_TOKEN: TOKEN, DATABASE_URL: db.url });
  };

  beforeAll(async () => {
    db = await clusterDatabase();
    llm = new FakeOpenAiServer();
    await llm.start();
    a = await replica();
    b = await replica();
  }, 120_000);

  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await llm?.stop();
    await db?.drop();
    for (const home of homes) rmSync(home, { recursive: true, force: true });
  });

  const signIn = async (g: GatewayProcess, token: string): Promise<string> => {
    const res = await fetch(`${g.url}/v1/auth/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token }),
    });
    expect(res.status).toBe(200);
    return /^nestclaw_session=([^;]+)/.exec(res.headers.getSetCookie()[0])![1];
  };
  /** A WebSocket opened on `g` with the cookie, as the UI's page opens it, and its close code once it closes. */
  const cookieSocket = async (g: GatewayProcess, cookie: string): Promise<{ closed: Promise<number> }> => {
    const ws = new WebSocket(`${g.url.replace('http', 'ws')}/ws`, { headers: { cookie: `nestclaw_session=${cookie}`, origin: g.url } });
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
    return { closed };
  };
  const whoAmI = (g: GatewayProcess, cookie: string) =>
    fetch(`${g.url}/v1/auth/session`, { headers: { cookie: `nestclaw_session=${cookie}` } });

  it("closes the WebSocket on replica B at once when the session's token is revoked on replica A", async () => {
    const { code } = (await (await a.api('/v1/pair/codes', { json: { scopes: ['chat'] } })).json()) as { code: string };
    const { token, id } = (await (await a.api('/v1/pair', { json: { code, name: 'browser' } })).json()) as { token: string; id: string };
    const cookie = await signIn(a, token);
    expect((await whoAmI(b, cookie)).status).toBe(200);
    const { closed } = await cookieSocket(b, cookie);

    const revokedAt = Date.now();
    expect((await a.api(`/v1/tokens/${id}`, { method: 'DELETE' })).status).toBe(200);
    expect(await closed).toBe(1008);
    expect(Date.now() - revokedAt).toBeLessThan(2000);
    expect((await whoAmI(b, cookie)).status).toBe(401);
  });

  it('closes the WebSocket on replica B when the browser signs out through replica A', async () => {
    const cookie = await signIn(a, TOKEN);
    const { closed } = await cookieSocket(b, cookie);
    const out = await fetch(`${a.url}/v1/auth/session`, {
      method: 'DELETE',
      headers: { cookie: `nestclaw_session=${cookie}`, origin: a.url },
    });
    expect(out.status).toBe(204);
    expect(await closed).toBe(1008);
    expect((await whoAmI(b, cookie)).status).toBe(401);
  });
});
