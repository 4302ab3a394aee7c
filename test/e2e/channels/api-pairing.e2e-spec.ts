import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import WebSocket from 'ws';
import { DatabaseService } from '@nestclaw/db';
import { Harness, startHarness } from '../../support/gateway-harness';

describe('API pairing and scoped tokens', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ config: { security: { rate_limit: { per_token: { limit: 5, window: '1m' } } } } });
  });
  afterAll(() => h.stop());

  const newCode = async (scopes?: string[]) => {
    const res = await h.api('/v1/pair/codes', { json: scopes ? { scopes } : {} });
    expect(res.status).toBe(201);
    return ((await res.json()) as { code: string }).code;
  };
  const pair = (code: string, name = 'laptop') =>
    fetch(`${h.gateway.url}/v1/pair`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code, name }),
    });
  const as = (token: string, path: string, init: RequestInit = {}) =>
    fetch(`${h.gateway.url}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...(init.headers ?? {}) } });
  /** The cheapest call a chat-scoped token may make: one turn against the fake model. */
  const chat = (token: string) =>
    as(token, '/v1/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'ping' }) });

  it('trades a 6-digit code for a chat-scoped token that is stored hashed and listed', async () => {
    const code = await newCode();
    expect(code).toMatch(/^\d{6}$/);
    const res = await pair(code);
    expect(res.status).toBe(201);
    const { token, id, scopes } = (await res.json()) as { token: string; id: string; scopes: string[] };
    expect(scopes).toEqual(['chat']);
    expect((await chat(token)).status).toBe(200);
    // a code works once
    expect((await pair(code)).status).toBe(401);
    const list = (await (await h.api('/v1/tokens')).json()) as { tokens: { id: string; name: string }[] };
    expect(list.tokens).toEqual(expect.arrayContaining([expect.objectContaining({ id, name: 'laptop' })]));
    expect(JSON.stringify(list)).not.toContain(token);
    const { rows } = await h.gateway.app
      .get(DatabaseService)
      .pool.query<{ token_hash: string }>('SELECT token_hash FROM api_tokens WHERE id = $1', [id]);
    expect(rows[0].token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(rows[0].token_hash).not.toContain(token);
  });

  it('refuses a route needing a scope the token lacks', async () => {
    const { token } = (await (await pair(await newCode(['chat']), 'phone')).json()) as { token: string };
    const res = await as(token, '/v1/tokens');
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('forbidden');
    // transcripts, usage, providers and the doctor report are the owner's (admin scope)
    for (const path of ['/v1/sessions', '/v1/usage', '/v1/providers', '/doctor']) expect((await as(token, path)).status).toBe(403);
  });

  it('answers 429 when a paired token exceeds its rate limit', async () => {
    const { token } = (await (await pair(await newCode(), 'script')).json()) as { token: string };
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await chat(token)).status);
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(statuses[5]).toBe(429);
  });

  it('gives a revoked token 401', async () => {
    const { token, id } = (await (await pair(await newCode(), 'old tablet')).json()) as { token: string; id: string };
    expect((await chat(token)).status).toBe(200);
    const res = await h.api(`/v1/tokens/${id}`, { method: 'DELETE' });
    expect(res.status).toBe(200);
    const after = await chat(token);
    expect(after.status).toBe(401);
  });

  it('lets a paired chat token open the WebSocket until it is revoked', async () => {
    const { token, id } = (await (await pair(await newCode(), 'ws client')).json()) as { token: string; id: string };
    const open = () =>
      new Promise<number>((resolve) => {
        const ws = new WebSocket(`${h.gateway.url.replace('http', 'ws')}/ws`, { headers: { authorization: `Bearer ${token}` } });
        ws.once('open', () => {
          ws.close();
          resolve(101);
        });
        ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.once('error', () => undefined);
      });
    expect(await open()).toBe(101);
    expect((await h.api(`/v1/tokens/${id}`, { method: 'DELETE' })).status).toBe(200);
    expect(await open()).toBe(401);
  });

  it('lets a paired token continue only the sessions it created', async () => {
    const a = ((await (await pair(await newCode(), 'device a')).json()) as { token: string }).token;
    const b = ((await (await pair(await newCode(), 'device b')).json()) as { token: string }).token;
    const say = (token: string, body: Record<string, unknown>, path = '/v1/chat') =>
      as(token, path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const { sessionId } = (await (await say(a, { message: 'mine' })).json()) as { sessionId: string };
    expect((await say(a, { message: 'still mine', sessionId })).status).toBe(200);
    const other = await say(b, { message: 'let me in', sessionId });
    expect(other.status).toBe(404);
    expect(((await other.json()) as { error: { code: string } }).error.code).toBe('session_not_found');
    // the OpenAI-compatible `user` field cannot be used to take over another token's session either
    const user = `shared-name-${Date.now()}`;
    const completions = (token: string) =>
      say(token, { model: 'nestclaw', user, messages: [{ role: 'user', content: 'hi' }] }, '/v1/chat/completions');
    expect((await completions(a)).status).toBe(200);
    expect((await completions(b)).status).toBe(404);
    // the owner sees and continues everything
    expect((await h.api('/v1/chat', { json: { message: 'owner here', sessionId } })).status).toBe(200);
  });

  it('applies the per-token rate limit to the WebSocket upgrade and chat frames too', async () => {
    const { token } = (await (await pair(await newCode(), 'ws burst')).json()) as { token: string };
    const ws = new WebSocket(`${h.gateway.url.replace('http', 'ws')}/ws`, { headers: { authorization: `Bearer ${token}` } });
    await new Promise((resolve) => ws.once('open', resolve));
    const outcome = (id: string) =>
      new Promise<string>((resolve) => {
        const onMessage = (d: WebSocket.RawData) => {
          const f = JSON.parse(d.toString()) as { type: string; id: string; code?: string };
          if (f.id !== id || (f.type !== 'done' && f.type !== 'error')) return;
          ws.off('message', onMessage);
          resolve(f.type === 'done' ? 'done' : String(f.code));
        };
        ws.on('message', onMessage);
        ws.send(JSON.stringify({ type: 'chat', id, message: 'hi' }));
      });
    const results: string[] = [];
    for (let i = 0; i < 6; i++) results.push(await outcome(`m${i}`));
    ws.close();
    // The upgrade itself counted as one request of the five.
    expect(results).toEqual(['done', 'done', 'done', 'done', 'rate_limited', 'rate_limited']);
  });

  it('applies a rate-limit change from the config file only after the owner confirms the code printed on the gateway terminal', async () => {
    const file = join(h.home, 'config.yaml');
    const config = parse(readFileSync(file, 'utf8')) as { security: { rate_limit: { per_token: { limit: number } } } };
    config.security.rate_limit.per_token.limit = 2;
    writeFileSync(file, stringify(config));
    const printed: string[] = [];
    const spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      printed.push(String(chunk));
      return true;
    });
    let pending: { pending: { changed: string[] } };
    try {
      pending = (await (await h.api('/v1/config/security/check', { method: 'POST', json: {} })).json()) as typeof pending;
    } finally {
      spy.mockRestore();
    }
    expect(pending.pending.changed).toEqual(['security.rate_limit']);
    const code = /with code ([A-Z2-9]{8})/.exec(printed.join(''))?.[1];
    expect(code).toBeDefined();
    expect(JSON.stringify(pending)).not.toContain(code);

    // Not applied yet: a fresh token still gets the old limit of 5.
    const burst = async () => {
      const { token } = (await (await pair(await newCode(), 'limit-probe')).json()) as { token: string };
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) statuses.push((await chat(token)).status);
      return statuses;
    };
    expect(await burst()).toEqual([200, 200, 200]);
    expect((await h.api('/v1/config/security/confirm', { json: { code: 'WRONGCOD' } })).status).toBe(401);
    const ok = await h.api('/v1/config/security/confirm', { json: { code } });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { applied: string[] }).applied).toEqual(['security.rate_limit']);
    expect(await burst()).toEqual([200, 200, 429]);
  });

  it('locks pairing for 15 minutes after five wrong codes, even for the right code', async () => {
    const good = await newCode();
    const wrong = good === '000000' ? '111111' : '000000';
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await pair(wrong, 'attacker')).status);
    expect(statuses.slice(0, 4)).toEqual([401, 401, 401, 401]);
    expect(statuses[4]).toBe(429);
    const locked = await pair(good);
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(14 * 60);
    const body = (await locked.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('pairing_locked');
    expect(body.error.message).toMatch(/1[45] more minute/);
  });
});
