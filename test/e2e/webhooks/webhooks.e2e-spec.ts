import { randomBytes, randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { JobScheduler, signatureFor, WebhookTurnRunner } from '@nestclaw/agent';
import { telegramHtmlToText } from '@nestclaw/channel';
import { Harness, startHarness } from '../../support/gateway-harness';
import { FakeTelegramServer } from '../../fixtures/fake-telegram.server';

const SECRET = 'whsec-0123456789abcdef-test';
const GITHUB_SECRET = 'github-secret-0123456789';
const STAMPED_SECRET = 'stamped-secret-0123456789';
const OWNER_CHAT = '4242';
type ErrorBody = { error: { code: string; message: string } };

/** Inbound webhooks through the real gateway: a fake Bot API for the answer, the fake model counting what reaches it. */
describe('POST /api/webhook/:id', () => {
  let h: Harness;
  let tg: FakeTelegramServer;

  const post = (id: string, body: string | Buffer, headers: Record<string, string> = {}) =>
    fetch(`${h.gateway.url}/api/webhook/${encodeURIComponent(id)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
  /** A correctly signed delivery of `payload` to the `alerts` hook. */
  const signed = (payload: unknown, delivery = randomUUID(), secret = SECRET) => {
    const body = JSON.stringify(payload);
    return post('alerts', body, { 'x-nestclaw-signature': signatureFor(secret, body), 'x-nestclaw-delivery': delivery });
  };
  const refusal = async (res: Response) => ({ status: res.status, code: ((await res.json()) as ErrorBody).error.code });
  const shown = (text: string) => tg.sentTo(OWNER_CHAT).filter((m) => telegramHtmlToText(m.current).includes(text));
  const idle = () => h.gateway.app.get(WebhookTurnRunner).idle();
  const lastPrompt = () =>
    h.llm.requests
      .at(-1)!
      .body.messages.filter((m) => m.role === 'user')
      .at(-1)!.content!;

  beforeAll(async () => {
    tg = new FakeTelegramServer();
    await tg.start();
    h = await startHarness({
      env: { ALERTS_SECRET: SECRET, GITHUB_SECRET, STAMPED_SECRET },
      config: {
        scheduler: { tick: '1h' },
        channels: { telegram: { enabled: true, token: tg.token, api_root: tg.url, poll_timeout: 1 } },
        webhooks: {
          alerts: {
            secret: '${ALERTS_SECRET}',
            template: 'Monitoring alert. Summarise it for the on-call person:\n{{payload}}',
            max_body: 4096,
            deliver_to: { channel: 'telegram', chat_id: OWNER_CHAT },
          },
          github: {
            secret: '${GITHUB_SECRET}',
            signature_header: 'X-Hub-Signature-256',
            delivery_header: 'X-GitHub-Delivery',
            deliver_to: { session: 'github-events' },
          },
          stamped: { secret: '${STAMPED_SECRET}', timestamp_tolerance_s: 300, deliver_to: { session: 'stamped-events' } },
        },
      },
    });
  });
  afterAll(async () => {
    await h?.stop();
    await tg?.stop();
  });

  it('answers 202 with the turn at once and sends the answer to the configured Telegram chat, once', async () => {
    h.llm.enqueue({ kind: 'text', text: 'Disk on db-1 is 95% full.' });
    const delivery = randomUUID();
    const res = await signed({ alert: 'disk', host: 'db-1', used: 0.95 }, delivery);
    expect(res.status).toBe(202);
    const accepted = (await res.json()) as { turnId: string; sessionId: string };
    expect(accepted).toEqual({ turnId: expect.stringMatching(/^[0-9a-f-]{36}$/), sessionId: 'webhook:alerts' });
    await tg.waitFor(() => shown('Disk on db-1 is 95% full.').length > 0, 15_000, 'the answer in the owner chat');
    await idle();
    expect(shown('Disk on db-1 is 95% full.')).toHaveLength(1);
    expect(tg.callsOf('sendMessage').filter((c) => String(c.payload.chat_id) === OWNER_CHAT)).toHaveLength(1);
    // The turn named in the 202 is the one that ran; its answer is recorded as delivered on the hook's job run.
    const [row] = await h.query<{ turn_id: string; status: string; delivered: boolean; reply: string }>(
      `SELECT r.turn_id::text, r.status, r.delivered_at IS NOT NULL AS delivered, m.content AS reply
         FROM webhook_deliveries d JOIN job_runs r ON r.id = d.job_run_id
         JOIN messages m ON m.turn_id = r.turn_id AND m.role = 'assistant'
        WHERE d.hook_id = 'alerts' AND d.delivery_id = $1`,
      [delivery],
    );
    expect(row).toEqual({ turn_id: accepted.turnId, status: 'ok', delivered: true, reply: 'Disk on db-1 is 95% full.' });
    // The payload reached the model fenced and labelled as untrusted.
    const prompt = lastPrompt();
    expect(prompt).toContain('Monitoring alert. Summarise it for the on-call person:');
    expect(prompt).toContain('<untrusted-webhook-payload hook="alerts">');
    expect(prompt).toContain('"host": "db-1"');
    expect(prompt).toMatch(/untrusted input from an external sender/);
  });

  it("retries an answer whose delivery a crash cut short through the scheduler's tick, without a second copy", async () => {
    h.llm.enqueue({ kind: 'text', text: 'Answer that survives a crash.' });
    const delivery = randomUUID();
    expect((await signed({ alert: 'mem' }, delivery)).status).toBe(202);
    await tg.waitFor(() => shown('Answer that survives a crash.').length > 0, 15_000, 'the answer');
    await idle();
    const [{ job_run_id: runId }] = await h.query<{ job_run_id: string }>(
      `SELECT job_run_id::text FROM webhook_deliveries WHERE hook_id = 'alerts' AND delivery_id = $1`,
      [delivery],
    );
    // As if the process died between the send and its record: undelivered, lease run out.
    await h.query(`UPDATE job_runs SET delivered_at = NULL, delivery_due_at = now() - interval '1 minute' WHERE id = $1`, [runId]);
    const scheduler = h.gateway.app.get(JobScheduler);
    await scheduler.tick();
    await scheduler.idle();
    expect(await h.query(`SELECT 1 FROM job_runs WHERE id = $1 AND delivered_at IS NOT NULL`, [runId])).toHaveLength(1);
    expect(await h.query(`SELECT chat_id, status FROM outbound_messages WHERE job_run_id = $1`, [runId])).toEqual([
      { chat_id: OWNER_CHAT, status: 'sent' },
    ]);
    expect(shown('Answer that survives a crash.')).toHaveLength(1);
  });

  it('refuses a replayed delivery id with 409 and answers it only once', async () => {
    h.llm.enqueue({ kind: 'text', text: 'Replay check answer.' });
    const delivery = randomUUID();
    expect((await signed({ alert: 'cpu' }, delivery)).status).toBe(202);
    await tg.waitFor(() => shown('Replay check answer.').length > 0, 15_000, 'the first answer');
    const calls = h.llm.chatRequests;
    expect(await refusal(await signed({ alert: 'cpu' }, delivery))).toEqual({ status: 409, code: 'webhook_replayed' });
    // Also a different body under the same id (a replay need not be byte-identical).
    expect(await refusal(await signed({ alert: 'cpu', again: true }, delivery))).toEqual({ status: 409, code: 'webhook_replayed' });
    await idle();
    expect(h.llm.chatRequests).toBe(calls);
    expect(shown('Replay check answer.')).toHaveLength(1);
  });

  it('refuses a replay after a restart (the delivery id is stored in PostgreSQL)', async () => {
    const delivery = randomUUID();
    h.llm.enqueue({ kind: 'text', text: 'Before the restart.' });
    expect((await signed({ n: 1 }, delivery)).status).toBe(202);
    await tg.waitFor(() => shown('Before the restart.').length > 0, 15_000, 'the answer before the restart');
    await idle();
    await h.restart();
    const calls = h.llm.chatRequests;
    expect(await refusal(await signed({ n: 1 }, delivery))).toEqual({ status: 409, code: 'webhook_replayed' });
    expect(h.llm.chatRequests).toBe(calls);
  });

  it('refuses bad requests with their documented codes, none of them reaching the model', async () => {
    const calls = h.llm.chatRequests;
    const body = JSON.stringify({ alert: 'x' });
    const id = { 'x-nestclaw-delivery': randomUUID() };
    const answers = {
      wrongSignature: await refusal(
        await post('alerts', body, { ...id, 'x-nestclaw-signature': signatureFor('not-the-secret-at-all', body) }),
      ),
      missingSignature: await refusal(await post('alerts', body, id)),
      malformedSignature: await refusal(await post('alerts', body, { ...id, 'x-nestclaw-signature': 'sha256=abc' })),
      // Signed for other bytes: the signature covers the body as sent.
      otherBytes: await refusal(await post('alerts', `${body} `, { ...id, 'x-nestclaw-signature': signatureFor(SECRET, body) })),
      unknownHook: await refusal(await post('nope', body, { ...id, 'x-nestclaw-signature': signatureFor(SECRET, body) })),
      oversize: await refusal(await signed({ blob: 'x'.repeat(5000) })),
      notJson: await refusal(await post('alerts', 'alert=disk', { ...id, 'x-nestclaw-signature': signatureFor(SECRET, 'alert=disk') })),
      plainText: await refusal(
        await fetch(`${h.gateway.url}/api/webhook/alerts`, {
          method: 'POST',
          headers: { 'content-type': 'text/plain', ...id, 'x-nestclaw-signature': signatureFor(SECRET, body) },
          body,
        }),
      ),
      noDeliveryId: await refusal(await post('alerts', body, { 'x-nestclaw-signature': signatureFor(SECRET, body) })),
    };
    expect(answers).toEqual({
      wrongSignature: { status: 401, code: 'webhook_signature_invalid' },
      missingSignature: { status: 401, code: 'webhook_signature_invalid' },
      malformedSignature: { status: 401, code: 'webhook_signature_invalid' },
      otherBytes: { status: 401, code: 'webhook_signature_invalid' },
      unknownHook: { status: 404, code: 'not_found' },
      oversize: { status: 413, code: 'payload_too_large' },
      notJson: { status: 400, code: 'invalid_request' },
      plainText: { status: 415, code: 'invalid_request' },
      noDeliveryId: { status: 400, code: 'invalid_request' },
    });
    // A refused request was never recorded, so its delivery id is still free: the same id, signed, is accepted.
    h.llm.enqueue({ kind: 'text', text: 'Only this one reached the model.' });
    expect((await post('alerts', body, { ...id, 'x-nestclaw-signature': signatureFor(SECRET, body) })).status).toBe(202);
    await idle();
    expect(h.llm.chatRequests).toBe(calls + 1);
    expect(lastPrompt()).toContain('"alert": "x"');
  });

  it("accepts GitHub's X-Hub-Signature-256 and X-GitHub-Delivery, runs in the configured session, and keeps Chinese intact", async () => {
    const payload = { action: 'opened', issue: { title: '登录页面在手机上无法加载', body: '用户反馈：点击“提交”后没有反应 <script>' } };
    const body = JSON.stringify(payload);
    const res = await post('github', body, {
      'X-Hub-Signature-256': signatureFor(GITHUB_SECRET, body),
      'X-GitHub-Delivery': randomUUID(),
      'X-GitHub-Event': 'issues',
    });
    expect(res.status).toBe(202);
    expect(((await res.json()) as { sessionId: string }).sessionId).toBe('github-events');
    await idle();
    const prompt = lastPrompt();
    expect(prompt).toContain('登录页面在手机上无法加载');
    expect(prompt).toContain('用户反馈：点击“提交”后没有反应');
    // `<` cannot close the fence: it arrives as the same JSON character, escaped.
    expect(prompt).toContain('\\u003cscript>');
    expect(prompt.match(/<\/untrusted-webhook-payload>/g)).toHaveLength(1);
    const [stored] = await h.query<{ content: string }>(
      `SELECT content FROM messages WHERE session_id = 'github-events' AND role = 'user' ORDER BY id DESC LIMIT 1`,
    );
    expect(stored.content).toContain('登录页面在手机上无法加载');
  });

  it('with timestamp_tolerance_s, refuses a captured request sent again under a new delivery id, and stale or future timestamps', async () => {
    const calls = h.llm.chatRequests;
    const body = JSON.stringify({ alert: '磁盘快满了', host: 'db-2' });
    const now = Math.floor(Date.now() / 1000);
    const stamped = (ts: number | string, delivery = randomUUID(), signature = signatureFor(STAMPED_SECRET, body, String(ts))) =>
      post('stamped', body, { 'x-nestclaw-timestamp': String(ts), 'x-nestclaw-signature': signature, 'x-nestclaw-delivery': delivery });
    h.llm.enqueue({ kind: 'text', text: 'Stamped answer.' });
    const captured = { ts: now, signature: signatureFor(STAMPED_SECRET, body, String(now)) };
    expect((await stamped(captured.ts, randomUUID(), captured.signature)).status).toBe(202);
    await idle();
    expect(h.llm.chatRequests).toBe(calls + 1);
    const answers = {
      // The same bytes and signature under a fresh delivery id: a replay, whatever the id says.
      replayNewId: await refusal(await stamped(captured.ts, randomUUID(), captured.signature)),
      // 100 s past the 300 s tolerance each way: `now` was taken seconds ago (now + 301 became fresh after 1 s).
      stale: await refusal(await stamped(now - 400)),
      future: await refusal(await stamped(now + 400)),
      missingTimestamp: await refusal(
        await post('stamped', body, { 'x-nestclaw-signature': signatureFor(STAMPED_SECRET, body), 'x-nestclaw-delivery': randomUUID() }),
      ),
      notSeconds: await refusal(await stamped(new Date().toISOString())),
      // A body-only signature is not enough, and the timestamp cannot be moved without re-signing.
      bodyOnlySignature: await refusal(await stamped(now, randomUUID(), signatureFor(STAMPED_SECRET, body))),
      movedTimestamp: await refusal(await stamped(now + 1, randomUUID(), captured.signature)),
    };
    expect(answers).toEqual({
      replayNewId: { status: 409, code: 'webhook_replayed' },
      stale: { status: 401, code: 'webhook_timestamp_expired' },
      future: { status: 401, code: 'webhook_timestamp_expired' },
      missingTimestamp: { status: 401, code: 'webhook_signature_invalid' },
      notSeconds: { status: 401, code: 'webhook_signature_invalid' },
      bodyOnlySignature: { status: 401, code: 'webhook_signature_invalid' },
      movedTimestamp: { status: 401, code: 'webhook_signature_invalid' },
    });
    expect(h.llm.chatRequests).toBe(calls + 1);
    // The same body sent again, signed anew with another timestamp, is a new delivery.
    h.llm.enqueue({ kind: 'text', text: 'Second stamped answer.' });
    expect((await stamped(now - 1)).status).toBe(202);
    await idle();
    expect(h.llm.chatRequests).toBe(calls + 2);
    const stored = await h.query<{ content: string }>(
      `SELECT content FROM messages WHERE session_id = 'stamped-events' AND role = 'user' ORDER BY id`,
    );
    expect(stored).toHaveLength(2);
    expect(stored[0].content).toContain('磁盘快满了');
  });

  it('refuses a signed payload nested too deeply with 400 before recording it (indenting it overflowed the stack: 500, id used up)', async () => {
    const calls = h.llm.chatRequests;
    const deliver = (body: string, delivery: string) =>
      post('github', body, { 'X-Hub-Signature-256': signatureFor(GITHUB_SECRET, body), 'X-GitHub-Delivery': delivery });
    const delivery = randomUUID();
    // 20 KB: within max_body, valid JSON, but 10,000 levels deep (and ~200 MB once indented).
    const deep = '['.repeat(10_000) + ']'.repeat(10_000);
    const res = await deliver(deep, delivery);
    expect({ status: res.status, body: await res.json() }).toEqual({
      status: 400,
      body: { error: { code: 'invalid_request', message: expect.stringContaining('nested deeper than 32 levels') } },
    });
    expect(await h.query(`SELECT 1 FROM webhook_deliveries WHERE hook_id = 'github' AND delivery_id = $1`, [delivery])).toEqual([]);
    expect(h.llm.chatRequests).toBe(calls);
    // The limit is generous for real payloads: 32 levels are accepted under the same (still unused) delivery id.
    h.llm.enqueue({ kind: 'text', text: 'Deep but fine.' });
    expect((await deliver('{"a":'.repeat(32) + '1' + '}'.repeat(32), delivery)).status).toBe(202);
    await idle();
    expect(h.llm.chatRequests).toBe(calls + 1);
  });

  it('refuses a body over the largest max_body before reading it, though server.body_limit is larger (no unauthenticated buffering)', async () => {
    // Content-Length 512 KiB (under server.body_limit, 1 MiB; over every hook's max_body, 64 KiB at most),
    // but only 16 bytes sent: the 413 must come without the gateway waiting for the rest.
    const answer = await new Promise<{ status: number; body: ErrorBody }>((resolve, reject) => {
      const req = request(`${h.gateway.url}/api/webhook/alerts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': String(512 * 1024) },
      });
      req.on('response', (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) as ErrorBody }));
      });
      req.on('error', reject);
      req.write('{"padding":"xxx');
    });
    expect(answer.status).toBe(413);
    expect(answer.body.error.code).toBe('payload_too_large');
    // Other routes keep server.body_limit: 512 KiB of JSON is read and judged by its content (400), not refused as too large.
    const big = await h.api('/v1/chat', { method: 'POST', json: { junk: 'x'.repeat(512 * 1024 - 100) } });
    expect(await refusal(big)).toEqual({ status: 400, code: 'invalid_request' });
  });

  it('never answers a 5xx to random bodies and headers, and none of them reach the model', async () => {
    const calls = h.llm.chatRequests;
    const contentTypes = ['application/json', 'application/json; charset=utf-8', 'text/plain', 'application/octet-stream', ''];
    const statuses = new Set<number>();
    for (let i = 0; i < 60; i++) {
      const bytes = randomBytes(Math.floor(Math.random() * 6000));
      const body = i % 3 === 0 ? bytes : i % 3 === 1 ? JSON.stringify({ junk: bytes.toString('latin1') }) : bytes.toString('utf8');
      const headers: Record<string, string> = {};
      const ct = contentTypes[i % contentTypes.length];
      if (ct) headers['content-type'] = ct;
      if (i % 2)
        headers['x-nestclaw-signature'] = i % 4 === 1 ? `sha256=${randomBytes(32).toString('hex')}` : randomBytes(8).toString('hex');
      if (i % 5) headers['x-nestclaw-delivery'] = randomBytes(6).toString('base64url');
      const hook = ['alerts', 'github', 'nope', '%E4%B8%AD', 'a'.repeat(80)][i % 5];
      const res = await fetch(`${h.gateway.url}/api/webhook/${hook}`, { method: 'POST', headers, body });
      statuses.add(res.status);
      const answer = (await res.json()) as ErrorBody;
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(answer.error.code).toEqual(expect.any(String));
    }
    expect([...statuses].every((s) => [400, 401, 404, 413, 415].includes(s))).toBe(true);
    await idle();
    expect(h.llm.chatRequests).toBe(calls);
  });
});
