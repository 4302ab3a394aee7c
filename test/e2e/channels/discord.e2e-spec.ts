import { DatabaseService } from '@nestclaw/db';
import { startGateway } from '../../../apps/gateway/src/bootstrap';
import { Harness, startHarness } from '../../support/gateway-harness';
import { DiscordUser, FakeDiscordServer } from '../../fixtures/fake-discord.server';

const dana: DiscordUser = { id: '700000000000000001', username: 'dana' };
const stranger: DiscordUser = { id: '700000000000000666', username: 'stranger' };
const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

describe('Discord channel (discord.js against a fake REST API and gateway)', () => {
  let h: Harness;
  let dc: FakeDiscordServer;

  beforeAll(async () => {
    dc = new FakeDiscordServer();
    await dc.start();
    h = await startHarness({
      config: {
        channels: { discord: { enabled: true, token: dc.token, api_root: dc.url, allow_from: [dana.id], stream_edit_interval: 50 } },
        security: { rate_limit: { per_sender: { limit: 100, window: '1m' } } },
      },
    });
    await dc.waitFor(() => dc.connected, 10_000, 'gateway connection');
  });
  afterAll(async () => {
    await h?.stop();
    await dc?.stop();
  });

  const texts = (channelId: string) => dc.postedTo(channelId).map((m) => m.current);

  it('answers an allowlisted user with a streamed preview edited into the final reply', async () => {
    h.llm.enqueue({ kind: 'text', text: 'Hi **Dana**, streamed over several tokens for you.', tokenDelayMs: 15 });
    const { channelId } = dc.dm(dana, 'hello bot');
    const msg = await dc.waitFor(
      () => dc.postedTo(channelId).find((m) => m.current === 'Hi **Dana**, streamed over several tokens for you.'),
      10_000,
      'final',
    );
    expect(msg.content).toMatch(/…$/);
    expect(msg.edits).toBeGreaterThan(0);
    expect(dc.calls.some((c) => c.method === 'POST' && c.path === `/channels/${channelId}/typing`)).toBe(true);
  });

  it('splits a 10,000-character Chinese reply into messages of at most 2000 with no broken character or code fence', async () => {
    const para = (i: number) => `第${i}段：${'这是一个用于测试消息拆分的中文句子。'.repeat(15)}🎉`;
    const code = ['```js', ...Array.from({ length: 40 }, (_, i) => `console.log("行${i}", ${i});`), '```'].join('\n');
    const text = [...Array.from({ length: 20 }, (_, i) => para(i)), code, ...Array.from({ length: 20 }, (_, i) => para(i + 20))].join(
      '\n\n',
    );
    expect(text.length).toBeGreaterThan(10_000);
    h.llm.enqueue({ kind: 'text', text });
    const { channelId } = dc.dm(dana, 'long one please');
    const before = dc.postedTo(channelId).length;
    const parts = await dc.waitFor(
      () => {
        const all = dc.postedTo(channelId).slice(before);
        return all.some((m) => m.current.includes('第39段')) && !all.some((m) => m.current.endsWith('…')) ? all : undefined;
      },
      15_000,
      'all parts',
    );
    expect(parts.length).toBeGreaterThanOrEqual(6);
    for (const p of parts) {
      expect(p.current.length).toBeLessThanOrEqual(2000);
      expect(loneSurrogate.test(p.current)).toBe(false);
      expect((p.current.match(/^```/gm) ?? []).length % 2).toBe(0);
    }
    const squash = (s: string) => s.replace(/```js|```/g, '').replace(/\s+/g, '');
    expect(squash(parts.map((p) => p.current).join(''))).toBe(squash(text));
  });

  it("gives a stranger's DM a pairing code without calling the model, and lets them chat once approved", async () => {
    const calls = h.llm.requests.length;
    const { channelId } = dc.dm(stranger, 'let me in');
    const first = await dc.waitFor(() => dc.postedTo(channelId)[0], 10_000, 'pairing reply');
    const code = /pairing code: ([A-Z2-9]{8})/.exec(first.current)?.[1];
    expect(code).toBeDefined();
    expect(h.llm.requests.length).toBe(calls);
    expect((await h.api('/v1/pairing/approve', { json: { channel: 'discord', code } })).status).toBe(200);
    dc.dm(stranger, 'thanks');
    await dc.waitFor(() => texts(channelId).includes('echo: thanks'), 10_000, 'reply after approval');
  });

  it('honours a Discord 429 retry_after and sends the reply exactly once', async () => {
    const { channelId } = dc.dm(dana, 'are you throttled?');
    dc.failNextPosts(1, 1);
    await dc.waitFor(() => texts(channelId).includes('echo: are you throttled?'), 15_000, 'reply after 429');
    const posts = dc.calls.filter(
      (c) => c.method === 'POST' && c.path === `/channels/${channelId}/messages` && c.body?.content === 'echo: are you throttled?',
    );
    expect(posts).toHaveLength(2);
    expect(posts[1].at - posts[0].at).toBeGreaterThanOrEqual(900);
    expect(texts(channelId).filter((t) => t === 'echo: are you throttled?')).toHaveLength(1);
  });

  it('renders an approval with buttons; only an allowlisted approver decides it', async () => {
    const channelId = dc.dmChannelOf(dana);
    const before = dc.postedTo(channelId).length;
    dc.dm(dana, `please save it [tool:file_write ${JSON.stringify({ path: 'from-discord.txt', content: 'x' })}]`);
    const card = await dc.waitFor(
      () =>
        dc
          .postedTo(channelId)
          .slice(before)
          .find((m) => !!m.components?.length),
      10_000,
      'approval card',
    );
    const [approve, deny] = card.components![0].components.map((c) => [c.label, c.custom_id]);
    expect(approve[0]).toBe('Approve');
    expect(deny[0]).toBe('Deny');
    expect(approve[1]).toMatch(/^ap:.+:a$/);
    const refusedId = dc.press(stranger, card, approve[1]);
    await dc.waitFor(() => dc.interactionReplies.find((r) => r.id === refusedId), 5_000, 'refusal');
    expect(card.current).toContain('Approval needed');
    dc.press(dana, card, deny[1]);
    await dc.waitFor(() => card.current.startsWith('Denied: file_write'), 5_000, 'card updated');
    expect(card.components).toEqual([]);
    // The denied call goes back to the model, which answers; later tests count model calls from here.
    await dc.waitFor(() => texts(channelId).some((t) => t.startsWith('tool said: denied')), 10_000, 'answer after the denial');
    const approvalId = /^ap:(.+):d$/.exec(deny[1])![1];
    const { rows } = await h.gateway.app
      .get(DatabaseService)
      .pool.query<{ status: string; decided_by: string }>(`SELECT status, decided_by FROM tool_approvals WHERE id = $1`, [approvalId]);
    expect(rows[0]).toEqual({ status: 'denied', decided_by: `discord:${dana.id}` });
  });

  it('refuses a 50 MB attachment with a reply and keeps answering', async () => {
    const calls = h.llm.requests.length;
    const { channelId } = dc.dm(dana, 'look at this', {
      attachments: [
        {
          id: '811',
          filename: 'huge.zip',
          size: 50 * 1024 * 1024,
          url: 'http://127.0.0.1/x',
          proxy_url: 'http://127.0.0.1/x',
          content_type: 'application/zip',
        },
      ],
    });
    await dc.waitFor(() => texts(channelId).some((t) => t.includes('too large')), 10_000, 'refusal');
    expect(h.llm.requests.length).toBe(calls);
    dc.dm(dana, 'ok, plain text then');
    await dc.waitFor(() => texts(channelId).includes('echo: ok, plain text then'), 10_000, 'next reply');
  });
  it('after a restart, answers messages sent while the gateway was down, once', async () => {
    const channelId = dc.dmChannelOf(dana);
    await h.gateway.close();
    await dc.waitFor(() => !dc.connected, 5_000, 'disconnect');
    dc.dmOffline(dana, 'sent while you were away');
    dc.dmOffline(dana, 'and another one');
    h.gateway = await startGateway({ env: h.env, port: 0, logLevels: ['error'], watchConfig: false });
    await dc.waitFor(() => texts(channelId).includes('echo: and another one'), 15_000, 'catch-up replies');
    const replies = texts(channelId).filter((t) => t === 'echo: sent while you were away' || t === 'echo: and another one');
    expect(replies).toEqual(['echo: sent while you were away', 'echo: and another one']);
  });
});
