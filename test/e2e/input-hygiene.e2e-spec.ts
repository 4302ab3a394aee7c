import { Harness, startHarness, TEST_TOKEN } from '../support/gateway-harness';
import { rawHttp } from '../support/raw-http';

type ErrorBody = { error: { code: string; message: string } };

describe('input hygiene: characters PostgreSQL cannot store and prototype names', () => {
  let h: Harness;
  let sessionId: string;
  beforeAll(async () => {
    h = await startHarness();
    const res = await h.api('/v1/chat', { json: { message: 'seed' } });
    sessionId = ((await res.json()) as { sessionId: string }).sessionId;
  });
  afterAll(() => h.stop());

  async function expect400(res: Response, field: string | RegExp): Promise<void> {
    expect(res.status).toBe(400);
    const body = (await res.json()) as ErrorBody;
    expect(body.error.code).toBe('invalid_request');
    expect(body.error.message).toMatch(field);
  }

  it('refuses a NUL in the chat message, naming the field, and stores nothing', async () => {
    const before = h.llm.chatRequests;
    await expect400(await h.api('/v1/chat', { json: { message: 'hello\u0000world', sessionId } }), /message: contains a NUL/);
    await expect400(await h.api('/v1/chat', { json: { message: 'ok', agentId: 'a\u0000' } }), /agentId: contains a NUL/);
    expect(h.llm.chatRequests).toBe(before);
    const { messages } = (await (await h.api(`/v1/sessions/${sessionId}/messages`)).json()) as { messages: unknown[] };
    expect(messages).toHaveLength(2);
  });

  it('refuses an unpaired surrogate in the chat message', async () => {
    const res = await h.api('/v1/chat', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"message":"broken \\udc00 text"}',
    });
    await expect400(res, /message: contains an unpaired UTF-16 surrogate/);
  });

  it('refuses a NUL in path parameters', async () => {
    await expect400(await h.api('/v1/sessions/abc%00def/recover'), /Invalid path parameter: sessionId: contains a NUL/);
    await expect400(await h.api('/v1/sessions/abc%00def/checkpoints', { json: {} }), /sessionId: contains a NUL/);
    await expect400(await h.api('/v1/tokens/ab%00cd', { method: 'DELETE' }), /id: contains a NUL/);
    await expect400(await h.api('/v1/approvals/ab%00cd', { json: { decision: 'approve' } }), /id: contains a NUL/);
  });

  it('refuses a NUL in a checkpoint summary', async () => {
    await expect400(await h.api(`/v1/sessions/${sessionId}/checkpoints`, { json: { summary: 'so far\u0000' } }), /summary: contains a NUL/);
  });

  it('refuses a NUL in query strings', async () => {
    await expect400(await h.api('/v1/audit?action=tool%00.execute'), /Invalid query: action: contains a NUL/);
    await expect400(await h.api('/v1/pairing?channel=tele%00gram'), /channel: contains a NUL/);
    await expect400(await h.api('/v1/usage?from=2026-01-01%00'), /from: contains a NUL/);
  });

  it('refuses a NUL in OpenAI-compatible messages and user, naming the field', async () => {
    const completion = (body: unknown) => h.api('/v1/chat/completions', { json: body });
    await expect400(
      await completion({ model: 'nestclaw', messages: [{ role: 'user', content: 'hi\u0000' }] }),
      /messages\.0\.content: contains a NUL/,
    );
    await expect400(
      await completion({ model: 'nestclaw', messages: [{ role: 'user', content: [{ type: 'text', text: '\u0000' }] }] }),
      /messages\.0\.content\.0\.text: contains a NUL/,
    );
    await expect400(
      await completion({ model: 'nestclaw', user: 'u\u0000', messages: [{ role: 'user', content: 'hi' }] }),
      /user: contains a NUL/,
    );
  });

  it('refuses an x-nestclaw-session header that is not a session id, naming the header', async () => {
    const res = await h.api('/v1/chat/completions', {
      json: { model: 'nestclaw', messages: [{ role: 'user', content: 'hi' }] },
      headers: { 'x-nestclaw-session': 'ä b' },
    });
    await expect400(res, /x-nestclaw-session header/);
  });

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'])(
    'answers agentId / model "%s" with 400 unknown agent',
    async (name) => {
      await expect400(await h.api('/v1/chat', { json: { message: 'hi', agentId: name } }), /Unknown agentId/);
      const res = await h.api('/v1/chat/completions', { json: { model: `nestclaw/${name}`, messages: [{ role: 'user', content: 'hi' }] } });
      expect(res.status).toBe(400);
    },
  );

  it('answers a channel named like a prototype property with 404, not 500', async () => {
    for (const channel of ['__proto__', 'constructor', 'toString']) {
      const res = await h.api('/v1/pairing/approve', { json: { channel, code: 'ABCD1234' } });
      expect(res.status).toBe(404);
      expect(((await res.json()) as ErrorBody).error.code).toBe('not_found');
    }
  });

  it('ignores prototype keys in a body instead of merging them', async () => {
    const res = await h.api('/v1/chat', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"message":"proto","constructor":{"prototype":{"x":1}},"__proto__":{"agentId":"evil"}}',
    });
    // Fastify's JSON parser refuses __proto__ keys outright (secure-json-parse); either way, no 500.
    expect([200, 400]).toContain(res.status);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});

/** Deterministic PRNG (mulberry32) so a failing fuzz run can be replayed from its seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('fuzz over the HTTP surface', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ config: { server: { body_limit: 256 * 1024 } } });
  });
  afterAll(() => h.stop());

  it('answers 600 random and malicious requests with 2xx/4xx in the JSON error shape, and stays up', async () => {
    const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000);
    const rnd = prng(seed);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
    const nasty = [
      '\u0000',
      'a\u0000b',
      '\ud800',
      '\udfff x',
      '__proto__',
      'constructor',
      'toString',
      'hasOwnProperty',
      '',
      ' ',
      '../../etc/passwd',
      "' OR 1=1 --",
      '%00',
      '%ff',
      '%',
      '😀',
      '你好',
      'x'.repeat(300),
      '9'.repeat(400),
      '-1',
      '1e309',
      'NaN',
      'true',
      'null',
    ];
    const scalar = (): unknown =>
      rnd() < 0.5
        ? pick(nasty)
        : pick([
            () => pick(nasty),
            () => rnd() * 1e12,
            () => Number.MAX_SAFE_INTEGER + 2,
            () => -1,
            () => 0,
            () => true,
            () => null,
            () => 'ok message',
            () => [],
            () => ({}),
          ])();
    const deep = (n: number): unknown => (n === 0 ? scalar() : rnd() < 0.5 ? [deep(n - 1)] : { [pick(nasty) || 'k']: deep(n - 1) });
    const body = (): string => {
      switch (Math.floor(rnd() * 10)) {
        case 8:
        case 9:
        case 0:
          return JSON.stringify({ message: scalar(), sessionId: scalar(), agentId: scalar(), stream: scalar() });
        case 1:
          return JSON.stringify({
            model: pick(['nestclaw', `nestclaw/${pick(nasty)}`, scalar()]),
            messages: [{ role: pick(['user', 'x']), content: scalar() }],
          });
        case 2:
          return JSON.stringify(deep(1 + Math.floor(rnd() * 3000)));
        case 3:
          return `${'['.repeat(5000)}${']'.repeat(5000)}`;
        case 4:
          return '{"message":"hi","__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}}}';
        case 5:
          return JSON.stringify({
            decision: scalar(),
            code: scalar(),
            name: scalar(),
            summary: scalar(),
            scopes: [scalar()],
            channel: scalar(),
            yaml: scalar(),
            version: scalar(),
            content: scalar(),
          });
        case 6:
          return String(scalar());
        default:
          return '{"message": 1e999999, "x": -0}';
      }
    };
    const routes: [string, string][] = [
      ['POST', '/v1/chat'],
      ['POST', '/v1/chat/completions'],
      ['GET', '/v1/sessions'],
      ['GET', '/v1/sessions/:x/messages'],
      ['GET', '/v1/sessions/:x/recover'],
      ['POST', '/v1/sessions/:x/checkpoints'],
      ['GET', '/v1/usage'],
      ['GET', '/v1/audit'],
      ['GET', '/v1/approvals'],
      ['POST', '/v1/approvals/:x'],
      ['GET', '/v1/tokens'],
      ['DELETE', '/v1/tokens/:x'],
      ['GET', '/v1/pairing'],
      ['GET', '/v1/channels/access'],
      ['POST', '/v1/pairing/approve'],
      ['POST', '/v1/pair/codes'],
      ['GET', '/v1/log/export'],
      ['GET', '/v1/providers'],
      ['GET', '/v1/heartbeats'],
      ['POST', '/v1/config/security/confirm'],
      ['GET', '/v1/config'],
      ['POST', '/v1/config/sections/:x/preview'],
      ['PUT', '/v1/config/sections/:x'],
      ['GET', '/v1/agents/:x/prompt'],
      ['GET', '/v1/agents/default/files/:x'],
      ['PUT', '/v1/agents/default/files/:x'],
      ['GET', '/v1/agents/default/skills/:x'],
      ['PUT', '/v1/agents/default/skills/:x'],
      ['GET', '/v1/:x'],
      ['PUT', '/v1/chat'],
    ];
    const queryKeys = [
      'limit',
      'before',
      'after',
      'from',
      'to',
      'groupBy',
      'action',
      'status',
      'channel',
      'probe',
      'q',
      'agent',
      '__proto__',
      'constructor',
    ];
    // Byte-wise percent-encoding (encodeURIComponent throws on lone surrogates), sometimes with raw surrogate bytes.
    const enc = (v: unknown): string =>
      [...Buffer.from(String(v))]
        .map((b) => (/[A-Za-z0-9_.~-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).padStart(2, '0')}`))
        .join('') + (rnd() < 0.05 ? '%ED%A0%80' : '');
    const failures: string[] = [];
    for (let i = 0; i < 600; i++) {
      const [method, template] = pick(routes);
      const path = template.replace(':x', () => enc(scalar()).replace(/%25/g, rnd() < 0.3 ? '%' : '%25'));
      const query = Array.from({ length: Math.floor(rnd() * 3) }, () => `${pick(queryKeys)}=${enc(scalar())}`).join('&');
      const url = `${path}${query ? `?${query}` : ''}${rnd() < 0.05 ? '&limit=1&limit=2' : ''}`;
      const payload = method === 'POST' || method === 'PUT' ? body() : undefined;
      const type = rnd() < 0.9 ? 'application/json' : pick(['text/plain', 'application/xml', 'application/json; charset=latin1', '']);
      const request = Buffer.concat([
        Buffer.from(
          `${method} ${url} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TEST_TOKEN}\r\n` +
            (payload !== undefined ? `Content-Type: ${type}\r\nContent-Length: ${Buffer.byteLength(payload)}\r\n` : '') +
            'Connection: close\r\n\r\n',
          'latin1',
        ),
        Buffer.from(payload ?? ''),
      ]);
      const res = await rawHttp(h.gateway.port, request);
      const isError = res.status >= 400;
      let shaped = !isError;
      if (isError) {
        try {
          const b = JSON.parse(res.body) as ErrorBody;
          shaped = typeof b.error?.code === 'string' && typeof b.error?.message === 'string';
        } catch {
          shaped = false;
        }
      }
      if (res.status >= 500 || res.status < 200 || !shaped) failures.push(`${method} ${url} -> ${res.status} ${res.body.slice(0, 200)}`);
    }
    expect({ seed, failures }).toEqual({ seed, failures: [] });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((await fetch(`${h.gateway.url}/health`)).status).toBe(200);
    const ok = await h.api('/v1/chat', { json: { message: 'after the fuzz' } });
    expect(ok.status).toBe(200);
  }, 180_000);
});
