import { Harness, startHarness, TEST_TOKEN } from '../support/gateway-harness';
import { concrete, nestRoutes, Route } from '../support/route-table';

type ErrorBody = { error: { code: string; message: string } };

/** A body every JSON route would parse, so only its label decides the answer. */
const BODY = JSON.stringify({ message: 'hello', code: '123456', decision: 'approve', schedule: { every: '30m' } });

/** How clients mislabel JSON: fetch's default for a string, curl's `-d` default, and no label at all. */
const LABELS: { name: string; headers: Record<string, string>; body: () => string | Uint8Array }[] = [
  { name: 'text/plain', headers: { 'content-type': 'text/plain;charset=UTF-8' }, body: () => BODY },
  { name: 'form-urlencoded', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: () => BODY },
  // A byte body: fetch sends it with no Content-Type header at all.
  { name: 'no content-type', headers: {}, body: () => new TextEncoder().encode(BODY) },
];

describe('request bodies are JSON only (415 otherwise), on every route that takes one', () => {
  let h: Harness;
  let bodyRoutes: Route[];
  beforeAll(async () => {
    h = await startHarness();
    bodyRoutes = nestRoutes(h).filter((r) => ['POST', 'PUT', 'PATCH'].includes(r.method));
  });
  afterAll(() => h.stop());

  it('finds the body routes in the route table (chat, completions, pairing, approvals, cron, memory, …)', () => {
    const paths = bodyRoutes.map((r) => `${r.method} ${r.path}`);
    for (const route of [
      'POST /v1/chat',
      'POST /v1/chat/completions',
      'POST /v1/pair',
      'POST /v1/approvals/:id',
      'POST /v1/cron',
      'POST /v1/memory',
    ])
      expect(paths).toContain(route);
  });

  it.each(LABELS)('answers 415 invalid_request to a JSON body sent as $name, before auth or validation', async ({ headers, body }) => {
    const before = h.llm.requests.length;
    const answers: string[] = [];
    for (const r of bodyRoutes) {
      const res = await fetch(`${h.gateway.url}${concrete(r.path)}`, {
        method: r.method,
        headers: { authorization: `Bearer ${TEST_TOKEN}`, ...headers },
        body: body(),
      });
      const { error } = (await res.json()) as ErrorBody;
      answers.push(`${r.method} ${r.path} -> ${res.status} ${error?.code}: ${error?.message}`);
    }
    const expected = 'Unsupported Content-Type: send the body as JSON with "Content-Type: application/json"';
    expect(answers).toEqual(bodyRoutes.map((r) => `${r.method} ${r.path} -> 415 invalid_request: ${expected}`));
    // Refused before any handler: no chat turn reached the model.
    expect(h.llm.requests.length).toBe(before);
  });

  it("keeps Fastify's JSON rules on every route but the webhook's, whose parser replaced the default one (400s, never a 5xx)", async () => {
    const post = async (body: string | Uint8Array) => {
      const res = await fetch(`${h.gateway.url}/v1/chat`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json' },
        body,
      });
      return { status: res.status, code: ((await res.json()) as ErrorBody).error.code };
    };
    const refused = { status: 400, code: 'invalid_request' };
    expect(await post('')).toEqual(refused);
    expect(await post('{"message":')).toEqual(refused);
    expect(await post('{"message":"hi","__proto__":{"agentId":"evil"}}')).toEqual(refused);
    expect(await post('{"message":"hi","constructor":{"prototype":{"agentId":"evil"}}}')).toEqual(refused);
    expect(await post(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]))).toEqual(refused);
  });

  it('still answers a JSON body labelled with a charset, and a POST with no body and no label', async () => {
    const chat = await fetch(`${h.gateway.url}/v1/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ message: '你好' }),
    });
    expect(chat.status).toBe(200);
    expect(((await chat.json()) as { reply: string }).reply).toBe('echo: 你好');
    const check = await fetch(`${h.gateway.url}/v1/config/security/check`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_TOKEN}` },
    });
    expect(check.status).toBe(200);
  });
});
