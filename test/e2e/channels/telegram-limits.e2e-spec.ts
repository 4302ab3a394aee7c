import { telegramHtmlToText } from '@nestclaw/channel';
import { Harness, startHarness } from '../../support/gateway-harness';
import { FakeTelegramServer, FakeUser } from '../../fixtures/fake-telegram.server';

const carol: FakeUser = { id: 4001, first_name: 'Carol' };
const dave: FakeUser = { id: 4002, first_name: 'Dave' };
const erin: FakeUser = { id: 4003, first_name: 'Erin' };

describe('Telegram channel limits: platform 429, oversized media, per-sender rate limit', () => {
  let h: Harness;
  let tg: FakeTelegramServer;

  beforeAll(async () => {
    tg = new FakeTelegramServer();
    await tg.start();
    h = await startHarness({
      config: {
        channels: {
          telegram: { enabled: true, token: tg.token, api_root: tg.url, allow_from: [carol.id, dave.id, erin.id], poll_timeout: 1 },
        },
        security: { rate_limit: { per_sender: { limit: 3, window: '1m' } } },
      },
    });
  });
  afterAll(async () => {
    await h?.stop();
    await tg?.stop();
  });

  const texts = (chatId: number) => tg.sentTo(chatId).map((m) => telegramHtmlToText(m.current));

  it('honours a platform 429 retry_after before sending again', async () => {
    tg.failNext('sendMessage', 1, 429, 1);
    tg.dm(carol, 'hello under pressure');
    await tg.waitFor(() => texts(carol.id).includes('echo: hello under pressure'), 10_000, 'reply after 429');
    const sends = tg.callsOf('sendMessage').filter((c) => String(c.payload.chat_id) === String(carol.id));
    expect(sends).toHaveLength(2);
    expect(sends[1].at - sends[0].at).toBeGreaterThanOrEqual(950);
    expect(tg.sentTo(carol.id)).toHaveLength(1);
  });

  it('refuses a 50 MB file with a reply, calls no model, and keeps running', async () => {
    const llmCalls = h.llm.requests.length;
    tg.dm(dave, undefined, {
      caption: 'please read this',
      document: {
        file_id: 'big-file',
        file_unique_id: 'u1',
        file_name: 'dump.bin',
        mime_type: 'application/octet-stream',
        file_size: 50 * 1024 * 1024,
      },
    });
    await tg.waitFor(() => texts(dave.id).find((t) => t.includes('too large')), 10_000, 'refusal');
    expect(h.llm.requests.length).toBe(llmCalls);
    tg.dm(dave, 'still there?');
    await tg.waitFor(() => texts(dave.id).includes('echo: still there?'), 10_000, 'next reply');
    expect((await h.api('/health')).status).toBe(200);
  });

  it('answers a sender over the rate limit once, politely, without calling the model', async () => {
    for (let i = 1; i <= 5; i++) tg.dm(erin, `flood ${i}`);
    await tg.waitFor(() => texts(erin.id).filter((t) => t.startsWith('echo: flood')).length === 3, 10_000, 'three answers');
    await tg.waitFor(() => texts(erin.id).find((t) => t.includes('faster than I can answer')), 5_000, 'polite refusal');
    await new Promise((r) => setTimeout(r, 300));
    expect(texts(erin.id).filter((t) => t.includes('faster than I can answer'))).toHaveLength(1);
    expect(texts(erin.id).filter((t) => t.startsWith('echo: flood'))).toEqual(['echo: flood 1', 'echo: flood 2', 'echo: flood 3']);
  });
  it('keeps at most three pairing codes pending per channel', async () => {
    const strangers = [7001, 7002, 7003, 7004].map((id) => ({ id, first_name: `S${id}` }));
    for (const s of strangers) {
      tg.dm(s, 'hello');
      await tg.waitFor(() => tg.pending === 0, 5_000, 'consumed');
    }
    await tg.waitFor(() => strangers.slice(0, 3).every((s) => tg.sentTo(s.id).length === 1), 5_000, 'three codes');
    await new Promise((r) => setTimeout(r, 300));
    expect(tg.sentTo(7004)).toHaveLength(0);
    const { requests } = (await (await h.api('/v1/pairing?channel=telegram')).json()) as { requests: { senderId: string }[] };
    expect(requests.map((r) => r.senderId).sort()).toEqual(['7001', '7002', '7003']);
  });
});
