import { createHash } from 'node:crypto';
import WebSocket from 'ws';
import { PairedTokenService, Scope, SCOPES } from '@nestclaw/security';
import { Harness, startHarness, TEST_TOKEN } from '../support/gateway-harness';

type ErrorBody = { error: { code: string; message: string } };
type SessionBody = { principal: { id: string; name: string; scopes: string[] }; expiresAt: string | null };

const SEVEN_DAYS_S = 7 * 24 * 3600;
const FOREIGN = 'https://evil.example';
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

/** A Set-Cookie line as its value and its attributes (lower-cased names; flags map to ''). */
function parseSetCookie(line: string): { name: string; value: string; attributes: Record<string, string> } {
  const [pair, ...attrs] = line.split(';').map((s) => s.trim());
  const eq = pair.indexOf('=');
  const attributes: Record<string, string> = {};
  for (const a of attrs) {
    const i = a.indexOf('=');
    attributes[(i < 0 ? a : a.slice(0, i)).toLowerCase()] = i < 0 ? '' : a.slice(i + 1);
  }
  return { name: pair.slice(0, eq), value: pair.slice(eq + 1), attributes };
}

describe('browser sign-in with a session cookie', () => {
  let h: Harness;
  let origin: string;
  const signIn = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${h.gateway.url}/v1/auth/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  /** The session cookie's value from a sign-in answer. */
  const cookieFrom = (res: Response) => parseSetCookie(res.headers.getSetCookie()[0]).value;
  /** A request as the UI's page makes it: the cookie, and its own Origin (browsers send none on GET). */
  const asBrowser = (path: string, cookie: string, init: RequestInit & { origin?: string | null } = {}) => {
    const { origin: from = origin, ...rest } = init;
    return fetch(`${h.gateway.url}${path}`, {
      ...rest,
      headers: { cookie: `nestclaw_session=${cookie}`, ...(from ? { origin: from } : {}), ...(rest.headers ?? {}) },
    });
  };
  const pairedToken = async (scopes: Scope[]) => h.gateway.app.get(PairedTokenService).issue(`browser ${scopes.join('+')}`, scopes);
  const openSocket = (headers: Record<string, string>) =>
    new Promise<WebSocket>((resolve, reject) => {
      const ws = new WebSocket(`${h.gateway.url.replace('http', 'ws')}/ws`, { headers });
      ws.once('open', () => resolve(ws));
      ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
      ws.once('error', reject);
    });

  beforeAll(async () => {
    // The fuzz below makes many wrong sign-ins from 127.0.0.1; the limit itself has its own describe.
    h = await startHarness({ config: { security: { rate_limit: { sign_in: { limit: 1000, window: '1m' } } } } });
    origin = h.gateway.url;
  });
  afterAll(() => h.stop());

  it('signs in with the owner token: the owner principal and an HttpOnly, SameSite=Strict cookie of 32 random bytes', async () => {
    const res = await signIn({ token: TEST_TOKEN });
    expect(res.status).toBe(200);
    const body = (await res.json()) as SessionBody;
    expect(body.principal).toEqual({ id: 'owner', name: 'owner', scopes: [...SCOPES] });
    expect(Date.parse(body.expiresAt!) - Date.now()).toBeGreaterThan(SEVEN_DAYS_S * 1000 - 60_000);
    const setCookies = res.headers.getSetCookie();
    expect(setCookies).toHaveLength(1);
    const cookie = parseSetCookie(setCookies[0]);
    expect(cookie.name).toBe('nestclaw_session');
    expect(cookie.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(cookie.attributes).toEqual({ 'max-age': String(SEVEN_DAYS_S), path: '/', httponly: '', samesite: 'Strict' });
  });

  it('never puts the token in the answer, and stores only a hash of the cookie', async () => {
    const { token } = await pairedToken(['chat']);
    const res = await signIn({ token });
    const text = await res.text();
    const headers = [...res.headers.entries()].map(([k, v]) => `${k}: ${v}`).join('\n');
    expect(`${headers}\n${text}`).not.toContain(token);
    const cookie = cookieFrom(res);
    const rows = await h.query<{ row: string }>(`SELECT row_to_json(s)::text AS row FROM web_sessions s`);
    expect(rows.map((r) => r.row).join('\n')).not.toContain(cookie);
    expect(rows.some((r) => r.row.includes(createHash('sha256').update(cookie).digest('hex')))).toBe(true);
  });

  it('signs in with a paired token and carries exactly its scopes', async () => {
    const { token, info } = await pairedToken(['chat', 'approve']);
    const res = await signIn({ token });
    expect(res.status).toBe(200);
    expect(((await res.json()) as SessionBody).principal).toEqual({ id: info.id, name: info.name, scopes: ['chat', 'approve'] });
    const cookie = cookieFrom(res);
    expect((await asBrowser('/v1/models', cookie)).status).toBe(200);
    expect(((await (await asBrowser('/v1/sessions', cookie)).json()) as ErrorBody).error.code).toBe('forbidden');
  });

  it('answers GET /v1/auth/session for the cookie and for a bearer token, 401 for neither', async () => {
    const cookie = cookieFrom(await signIn({ token: TEST_TOKEN }));
    const byCookie = await asBrowser('/v1/auth/session', cookie, { origin: null });
    expect(byCookie.status).toBe(200);
    expect(((await byCookie.json()) as SessionBody).principal.id).toBe('owner');
    expect(parseSetCookie(byCookie.headers.getSetCookie()[0]).attributes).toMatchObject({ httponly: '', samesite: 'Strict' });
    const byBearer = await h.api('/v1/auth/session');
    expect(await byBearer.json()).toEqual({ principal: { id: 'owner', name: 'owner', scopes: [...SCOPES] }, expiresAt: null });
    const anonymous = await fetch(`${h.gateway.url}/v1/auth/session`);
    expect(anonymous.status).toBe(401);
    const forged = await asBrowser('/v1/auth/session', 'A'.repeat(43));
    expect(forged.status).toBe(401);
    expect(((await forged.json()) as ErrorBody).error.message).toContain('nestclaw ui');
  });

  it('lets the cookie call an API route as its principal', async () => {
    const cookie = cookieFrom(await signIn({ token: TEST_TOKEN }));
    const res = await asBrowser('/v1/sessions', cookie, { origin: null });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ sessions: expect.any(Array) });
  });

  it('signs out: 204, the cookie cleared, and the session refused at once', async () => {
    const cookie = cookieFrom(await signIn({ token: TEST_TOKEN }));
    const out = await asBrowser('/v1/auth/session', cookie, { method: 'DELETE' });
    expect(out.status).toBe(204);
    const cleared = parseSetCookie(out.headers.getSetCookie()[0]);
    expect(cleared).toMatchObject({ name: 'nestclaw_session', value: '' });
    expect(cleared.attributes['max-age']).toBe('0');
    expect((await asBrowser('/v1/auth/session', cookie)).status).toBe(401);
  });

  it("ends a paired token's cookie session when the token is revoked, and closes its open WebSocket", async () => {
    const { token, info } = await pairedToken(['chat']);
    const cookie = cookieFrom(await signIn({ token }));
    const ws = await openSocket({ cookie: `nestclaw_session=${cookie}`, origin });
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    const frames: string[] = [];
    ws.on('message', (d: WebSocket.RawData) => frames.push(d.toString()));
    const bearerWs = await openSocket({ authorization: `Bearer ${TEST_TOKEN}` });

    expect((await h.api(`/v1/tokens/${info.id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await asBrowser('/v1/auth/session', cookie)).status).toBe(401);
    expect(await closed).toBe(1008);
    expect(JSON.parse(frames[0])).toMatchObject({ type: 'error', code: 'unauthorized' });
    expect(bearerWs.readyState).toBe(WebSocket.OPEN);
    bearerWs.close();
    expect(await h.query(`SELECT id FROM web_sessions WHERE token_id = $1`, [info.id])).toEqual([]);
  });

  it('closes the WebSocket of a session that signs out', async () => {
    const cookie = cookieFrom(await signIn({ token: TEST_TOKEN }));
    const ws = await openSocket({ cookie: `nestclaw_session=${cookie}`, origin });
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    expect((await asBrowser('/v1/auth/session', cookie, { method: 'DELETE' })).status).toBe(204);
    expect(await closed).toBe(1008);
  });

  it('opens a session with a login code once, then refuses the same code', async () => {
    const made = await h.api('/v1/auth/login-codes', { json: {} });
    expect(made.status).toBe(201);
    const { code, expiresAt } = (await made.json()) as { code: string; expiresAt: string };
    expect(Date.parse(expiresAt) - Date.now()).toBeLessThanOrEqual(120_000);
    const first = await signIn({ code });
    expect(first.status).toBe(200);
    expect(((await first.json()) as SessionBody).principal.id).toBe('owner');
    const again = await signIn({ code });
    expect(again.status).toBe(401);
    expect(((await again.json()) as ErrorBody).error).toEqual({ code: 'unauthorized', message: expect.stringContaining('nestclaw ui') });
  });

  it('refuses an expired login code', async () => {
    const { code } = (await (await h.api('/v1/auth/login-codes', { json: {} })).json()) as { code: string };
    const hash = createHash('sha256').update(code).digest('hex');
    await h.query(`UPDATE web_login_codes SET expires_at = now() - interval '1 second' WHERE code_hash = $1`, [hash]);
    expect((await signIn({ code })).status).toBe(401);
  });

  it("gives a login code made with a paired admin token that token's scopes, and refuses it once the token is revoked", async () => {
    const { token, info } = await pairedToken(['admin', 'chat']);
    const made = await fetch(`${h.gateway.url}/v1/auth/login-codes`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    const { code } = (await made.json()) as { code: string };
    const { code: unused } = (await (
      await fetch(`${h.gateway.url}/v1/auth/login-codes`, { method: 'POST', headers: { authorization: `Bearer ${token}` } })
    ).json()) as { code: string };
    const res = await signIn({ code });
    expect(((await res.json()) as SessionBody).principal).toEqual({ id: info.id, name: info.name, scopes: ['admin', 'chat'] });
    await h.api(`/v1/tokens/${info.id}`, { method: 'DELETE' });
    expect((await signIn({ code: unused })).status).toBe(401);
  });

  it('refuses a cookie write from a foreign Origin or without one (403), but not the same write with a bearer token', async () => {
    const cookie = cookieFrom(await signIn({ token: TEST_TOKEN }));
    const write = (headers: Record<string, string>, from: string | null) =>
      asBrowser('/v1/auth/login-codes', cookie, { method: 'POST', origin: from, headers });
    const foreign = await write({}, FOREIGN);
    expect(foreign.status).toBe(403);
    expect(((await foreign.json()) as ErrorBody).error.code).toBe('forbidden');
    expect((await write({}, null)).status).toBe(403);
    expect((await write({}, origin)).status).toBe(201);
    const bearer = await fetch(`${h.gateway.url}/v1/auth/login-codes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_TOKEN}`, origin: FOREIGN },
    });
    expect(bearer.status).toBe(201);
  });

  it('refuses a WebSocket upgrade with the cookie from a foreign Origin or without one, before the handshake', async () => {
    const cookie = cookieFrom(await signIn({ token: TEST_TOKEN }));
    await expect(openSocket({ cookie: `nestclaw_session=${cookie}`, origin: FOREIGN })).rejects.toThrow('HTTP 403');
    await expect(openSocket({ cookie: `nestclaw_session=${cookie}` })).rejects.toThrow('HTTP 403');
    (await openSocket({ cookie: `nestclaw_session=${cookie}`, origin })).close();
  });

  it('sends the security headers on every response: JSON, errors and unknown routes', async () => {
    const answers = [await h.api('/v1/models'), await fetch(`${h.gateway.url}/v1/models`), await fetch(`${h.gateway.url}/no/such/route`)];
    for (const res of answers) {
      expect(res.headers.get('content-security-policy')).toBe(CSP);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
    }
  });

  it('answers every malformed sign-in body with a 4xx error, never a 500', async () => {
    const bodies: unknown[] = [
      '[]',
      '"token"',
      '42',
      'null',
      '{"token":',
      {},
      { token: 42 },
      { token: null },
      { token: '' },
      { token: ['a'] },
      { token: { $ne: '' } },
      { code: true },
      { token: TEST_TOKEN, code: 'x' },
      { token: TEST_TOKEN, admin: true },
      { token: 'x'.repeat(100_000) },
      { code: 'y'.repeat(10_000) },
      { token: `${TEST_TOKEN}\u0000` },
      { code: '\u0000' },
      { code: '\ud800' },
      { token: 'ncw_wrong' },
      { code: 'not-a-code' },
      { __proto__: { token: TEST_TOKEN } },
    ];
    const answers: string[] = [];
    for (const body of bodies) {
      const res = await signIn(body);
      const json = (await res.json()) as ErrorBody;
      answers.push(`${res.status} ${typeof json.error?.code} ${typeof json.error?.message}`);
      expect(res.headers.getSetCookie()).toEqual([]);
    }
    for (const a of answers) expect(a).toMatch(/^4(00|01|13) string string$/);
    expect((await signIn('x'.repeat(2_000_000))).status).toBe(413);
  });
});

describe('sign-in limits and server.ui settings', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      config: {
        server: { ui: { secure_cookie: true, allowed_origins: ['https://ui.example:8443/'], session_ttl: '1h' } },
        security: { rate_limit: { sign_in: { limit: 4, window: '1m' } } },
      },
    });
  });
  afterAll(() => h.stop());

  it('marks the cookie Secure with server.ui.secure_cookie, lasts server.ui.session_ttl, and accepts an allowed origin', async () => {
    const res = await fetch(`${h.gateway.url}/v1/auth/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: TEST_TOKEN }),
    });
    const cookie = parseSetCookie(res.headers.getSetCookie()[0]);
    expect(cookie.attributes).toEqual({ 'max-age': '3600', path: '/', httponly: '', samesite: 'Strict', secure: '' });
    const write = (origin: string) =>
      fetch(`${h.gateway.url}/v1/auth/login-codes`, { method: 'POST', headers: { cookie: `nestclaw_session=${cookie.value}`, origin } });
    expect((await write('https://ui.example:8443')).status).toBe(201);
    expect((await write('https://ui.example')).status).toBe(403);
  });

  it('refuses the attempt after security.rate_limit.sign_in from one address, even with the right token', async () => {
    const attempt = (token: string) =>
      fetch(`${h.gateway.url}/v1/auth/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token }),
      });
    // The sign-in above was the first of this address's four.
    for (let i = 0; i < 3; i++) expect((await attempt(`ncw_guess_${i}`)).status).toBe(401);
    const limited = await attempt(TEST_TOKEN);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await limited.json()) as ErrorBody).error.code).toBe('rate_limited');
  });
});
