import { slackMrkdwnToText } from '@nestclaw/channel';
import { eventually } from '../../support/eventually';
import { Harness, startHarness } from '../../support/gateway-harness';
import { FakeSlackServer, SlackPosted, SlackUser } from '../../fixtures/fake-slack.server';

const dana: SlackUser = { id: 'U0DANA0001', name: 'dana' };
const lee: SlackUser = { id: 'U0LEE00002', name: 'lee' };
const stranger: SlackUser = { id: 'U0STRANGE6', name: 'mallory' };
const general = 'C0GENERAL1';
const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

describe('Slack channel (@slack/socket-mode and @slack/web-api against a fake Web API and Socket Mode server)', () => {
  let h: Harness;
  let sl: FakeSlackServer;

  beforeAll(async () => {
    sl = new FakeSlackServer();
    await sl.start();
    h = await startHarness({
      config: {
        channels: {
          slack: {
            enabled: true,
            bot_token: sl.botToken,
            app_token: sl.appToken,
            api_root: sl.apiRoot,
            allow_from: [dana.id, lee.id],
            stream_edit_interval: 50,
          },
        },
        security: { rate_limit: { per_sender: { limit: 100, window: '1m' } } },
      },
    });
    await sl.waitFor(() => sl.connected, 10_000, 'Socket Mode connection');
  });
  afterAll(async () => {
    await h?.stop();
    await sl?.stop();
  });

  const texts = (channel: string, from = 0) =>
    sl
      .postedTo(channel)
      .slice(from)
      .map((m) => slackMrkdwnToText(m.current));

  it('answers a DM with a placeholder edited into the final reply, and acknowledges the envelope once stored', async () => {
    h.llm.enqueue({ kind: 'text', text: 'Hi **Dana**, streamed over several tokens for you.', tokenDelayMs: 15 });
    const { channel, envelopeId } = sl.dm(dana, 'hello bot');
    const msg = await sl.waitFor(
      () => sl.postedTo(channel).find((m) => m.current === 'Hi *Dana*, streamed over several tokens for you.'),
      10_000,
      'final reply',
    );
    expect(msg.text).toBe('…');
    expect(msg.edits).toBeGreaterThan(0);
    expect(sl.acked).toContain(envelopeId);
    const stored = await h.query<{ status: string }>(
      `SELECT status FROM inbound_messages WHERE channel = 'slack' AND payload->>'text' = 'hello bot'`,
    );
    expect(stored).toHaveLength(1);
    expect(h.llm.requests.at(-1)!.body.messages.at(-1)).toMatchObject({ role: 'user', content: 'hello bot' });
  });

  it('answers a mention in a channel once (message and app_mention are one message) and ignores the channel without a mention', async () => {
    const calls = h.llm.requests.length;
    sl.post(general, dana, 'just talking among ourselves');
    const { ts } = sl.post(general, dana, `<@${sl.bot.id}> what is 2 + 2?`);
    await sl.waitFor(() => texts(general).includes('echo: what is 2 + 2?'), 10_000, 'channel reply');
    await sl.waitFor(() => sl.unacked === 0, 5_000, 'every envelope acknowledged');
    expect(h.llm.requests.length).toBe(calls + 1);
    expect(texts(general).filter((t) => t.startsWith('echo:'))).toEqual(['echo: what is 2 + 2?']);
    const rows = await eventually('the mention to be marked answered', async () => {
      const found = await h.query<{ status: string; platform_message_id: string }>(
        `SELECT status, platform_message_id FROM inbound_messages WHERE channel = 'slack' AND chat_id = $1 ORDER BY id`,
        [general],
      );
      return found.some((r) => r.status === 'received') ? undefined : found;
    });
    // The message without a mention was handled first (one chain, arrival order) and never stored.
    expect(rows).toEqual([{ platform_message_id: `${general}:${ts}`, status: 'answered' }]);
  });

  it('keeps a thread in its own session, answered in that thread', async () => {
    const { ts } = sl.post(general, lee, `<@${sl.bot.id}> FACT: the thread starts here`);
    await sl.waitFor(() => texts(general).includes('echo: FACT: the thread starts here'), 10_000, 'top-level reply');
    sl.post(general, lee, `<@${sl.bot.id}> in the thread`, { threadTs: ts });
    const reply = await sl.waitFor(
      () => sl.postedTo(general).find((m) => slackMrkdwnToText(m.current) === 'echo: in the thread'),
      10_000,
      'thread reply',
    );
    expect(reply.thread_ts).toBe(ts);
    // The thread's first turn sees none of the channel's conversation.
    const sent = h.llm.requests.at(-1)!.body.messages;
    expect(sent.filter((m) => m.role !== 'system').map((m) => m.content)).toEqual(['in the thread']);
    const keys = await h.query<{ session_key: string }>(
      `SELECT DISTINCT session_key FROM inbound_messages WHERE channel = 'slack' AND chat_id = $1 ORDER BY session_key`,
      [general],
    );
    expect(keys.map((k) => k.session_key)).toEqual([expect.not.stringContaining(ts), expect.stringContaining(ts)]);
  });

  it("gives a stranger's DM a pairing code without calling the model, and lets them chat once approved", async () => {
    const calls = h.llm.requests.length;
    const { channel } = sl.dm(stranger, 'let me in');
    const first = await sl.waitFor(() => sl.postedTo(channel)[0], 10_000, 'pairing reply');
    const code = /pairing code: ([A-Z2-9]{8})/.exec(slackMrkdwnToText(first.current))?.[1];
    expect(code).toBeDefined();
    expect(h.llm.requests.length).toBe(calls);
    expect((await h.api('/v1/pairing/approve', { json: { channel: 'slack', code } })).status).toBe(200);
    sl.dm(stranger, 'thanks');
    await sl.waitFor(() => texts(channel).includes('echo: thanks'), 10_000, 'reply after approval');
  });

  it('approves a tool call with a Block Kit button; a non-approver is told so, privately', async () => {
    const channel = sl.dmChannelOf(dana);
    const before = sl.postedTo(channel).length;
    sl.dm(dana, `please save it [tool:file_write ${JSON.stringify({ path: 'from-slack.txt', content: 'from-slack' })}]`);
    const card = await sl.waitFor(
      () =>
        sl
          .postedTo(channel)
          .slice(before)
          .find((m) => m.blocks?.some((b) => b.type === 'actions')),
      10_000,
      'approval card',
    );
    const buttons = card.blocks!.find((b) => b.type === 'actions')!.elements!;
    expect(buttons.map((b) => b.text.text)).toEqual(['Approve', 'Deny']);
    expect(slackMrkdwnToText(card.text)).toContain('file_write');
    const approve = buttons[0].value;
    expect(approve).toMatch(/^ap:.+:a$/);

    sl.press(stranger, card, approve);
    await sl.waitFor(() => sl.ephemeral.find((e) => e.user === stranger.id && /not allowed/.test(e.text)), 5_000, 'refusal');
    expect(slackMrkdwnToText(card.current)).toContain('Approval needed');

    sl.press(dana, card, approve);
    const reply = await sl.waitFor(() => texts(channel, before).find((t) => t.startsWith('tool said:')), 15_000, 'reply after approval');
    expect(reply).toContain('wrote 10 bytes to from-slack.txt');
    await sl.waitFor(() => /^Approved: file_write/.test(slackMrkdwnToText(card.current)), 5_000, 'card updated');
    expect(card.blocks).toBeUndefined();
    const approvalId = /^ap:(.+):a$/.exec(approve)![1];
    const rows = await h.query<{ status: string; decided_by: string }>(`SELECT status, decided_by FROM tool_approvals WHERE id = $1`, [
      approvalId,
    ]);
    expect(rows[0]).toEqual({ status: 'approved', decided_by: `slack:${dana.id}` });
  });

  it('splits a 10,000-character Chinese reply into messages of at most 3000 with no broken character or code fence', async () => {
    const para = (i: number) => `第${i}段：${'这是一个用于测试消息拆分的中文句子。'.repeat(15)}🎉`;
    const code = ['```js', ...Array.from({ length: 40 }, (_, i) => `console.log("行${i}", ${i});`), '```'].join('\n');
    const text = [...Array.from({ length: 20 }, (_, i) => para(i)), code, ...Array.from({ length: 20 }, (_, i) => para(i + 20))].join(
      '\n\n',
    );
    expect(text.length).toBeGreaterThan(10_000);
    h.llm.enqueue({ kind: 'text', text });
    const channel = sl.dmChannelOf(lee);
    const before = sl.postedTo(channel).length;
    sl.dm(lee, '请写一段很长的中文');
    const parts = await sl.waitFor(
      () => {
        const all = sl.postedTo(channel).slice(before);
        return all.some((m) => m.current.includes('第39段')) && !all.some((m) => m.current.endsWith('…')) ? all : undefined;
      },
      15_000,
      'all parts',
    );
    expect(parts.length).toBeGreaterThanOrEqual(4);
    for (const p of parts) {
      expect(p.current.length).toBeLessThanOrEqual(3000);
      expect(loneSurrogate.test(p.current)).toBe(false);
      expect((p.current.match(/^```/gm) ?? []).length % 2).toBe(0);
    }
    const squash = (s: string) => s.replace(/```js|```/g, '').replace(/\s+/g, '');
    expect(squash(parts.map((p) => slackMrkdwnToText(p.current)).join(''))).toBe(squash(text));
    // The Chinese question reached the model as written.
    expect(h.llm.requests.at(-1)!.body.messages.at(-1)).toMatchObject({ role: 'user', content: '请写一段很长的中文' });
  });

  it('keeps Chinese text and Slack-escaped characters intact both ways', async () => {
    const channel = sl.dmChannelOf(dana);
    sl.dm(dana, '你好，世界 <b> & 🎉');
    await sl.waitFor(() => texts(channel).includes('echo: 你好，世界 <b> & 🎉'), 10_000, 'Chinese reply');
    expect(sl.postedTo(channel).some((m: SlackPosted) => m.current === 'echo: 你好，世界 &lt;b&gt; &amp; 🎉')).toBe(true);
  });

  it('honours a 429 Retry-After and sends the reply once', async () => {
    const channel = sl.dmChannelOf(lee);
    sl.failNextPosts(1, 1);
    const posts = () => sl.callsOf('chat.postMessage').filter((c) => c.body.channel === channel);
    const before = posts().length;
    sl.dm(lee, 'are you throttled?');
    await sl.waitFor(() => texts(channel).includes('echo: are you throttled?'), 15_000, 'reply after 429');
    const mine = posts().slice(before);
    expect(mine).toHaveLength(2);
    expect(mine[1].at - mine[0].at).toBeGreaterThanOrEqual(900);
    expect(texts(channel).filter((t) => t === 'echo: are you throttled?')).toHaveLength(1);
  });

  it('routes by team binding: the message carries its Slack team id', async () => {
    const rows = await h.query<{ payload: { teamId?: string } }>(
      `SELECT payload FROM inbound_messages WHERE channel = 'slack' AND payload->>'text' = 'hello bot'`,
    );
    expect(rows[0].payload.teamId).toBe(sl.teamId);
  });

  it('lists slack in GET /v1/channels as running', async () => {
    const res = await h.api('/v1/channels');
    const body = (await res.json()) as { channels: { id: string; state: string }[] };
    expect(body.channels).toEqual(expect.arrayContaining([expect.objectContaining({ id: 'slack', state: 'running', error: null })]));
  });

  it('is added by the plugin bundled with nestclaw, through the plugin API (Track A), and /doctor says so', async () => {
    const { plugins } = (await (await h.api('/v1/plugins')).json()) as { plugins: Record<string, unknown>[] };
    expect(plugins).toEqual([
      expect.objectContaining({
        name: 'slack',
        origin: 'bundled',
        track: 'trusted',
        state: 'loaded',
        contributes: expect.objectContaining({ channels: ['slack'] }),
      }),
    ]);
    const { checks } = (await (await h.api('/doctor')).json()) as { checks: { name: string; status: string }[] };
    expect(checks.find((c) => c.name === 'plugin slack')?.status).toBe('ok');
    // Config decides a bundled plugin: the plugins API refuses to disable it rather than keep a choice nothing reads.
    const refused = await h.api('/v1/plugins/slack/disable', { json: {} });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toEqual({
      error: { code: 'conflict', message: 'plugin slack is bundled with nestclaw: set channels.slack.enabled in config.yaml instead' },
    });
  });
});
