import { DatabaseService } from '@nestclaw/db';
import { eventually } from '../../support/eventually';
import { Harness, startHarness } from '../../support/gateway-harness';
import { FakeFeishuServer, FeishuUser } from '../../fixtures/fake-feishu.server';

const lin: FeishuUser = { openId: 'ou_lin00000000000000000000000000001', name: '林小雨' };
const kai: FeishuUser = { openId: 'ou_kai00000000000000000000000000002', name: 'Kai' };
const stranger: FeishuUser = { openId: 'ou_str00000000000000000000000000666', name: '陌生人' };
const hasLoneSurrogate = (s: string) => /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);

describe('Feishu/Lark channel (@larksuiteoapi/node-sdk long connection against a fake Open Platform)', () => {
  let h: Harness;
  let fs: FakeFeishuServer;

  beforeAll(async () => {
    fs = new FakeFeishuServer();
    await fs.start();
    h = await startHarness({
      config: {
        channels: {
          feishu: {
            enabled: true,
            app_id: fs.appId,
            app_secret: fs.appSecret,
            domain: fs.url,
            allow_from: [lin.openId, kai.openId],
            stream_edit_interval: 50,
          },
        },
        security: { rate_limit: { per_sender: { limit: 100, window: '1m' } } },
      },
    });
    await eventually('the long connection', () => fs.connected, 15_000);
  });
  afterAll(async () => {
    await h?.stop();
    await fs?.stop();
  });

  const shown = (chatId: string, from = 0) =>
    fs
      .messagesIn(chatId)
      .slice(from)
      .map((m) => m.current);

  it('answers a DM with a card streamed as a preview and edited into the final reply, and acknowledges the event', async () => {
    h.llm.enqueue({ kind: 'text', text: 'Hello **Lin**, here is a streamed answer with several tokens.', tokenDelayMs: 15 });
    const { chatId, event } = fs.dm(lin, 'hi there');
    const msg = await eventually(
      'the final edit',
      () => fs.messagesIn(chatId).find((m) => m.current === 'Hello **Lin**, here is a streamed answer with several tokens.'),
      10_000,
    );
    expect(msg.msg_type).toBe('interactive');
    expect(msg.first).toMatch(/…$/);
    expect(msg.edits).toBeGreaterThan(0);
    expect(event.response).toEqual({ code: 200, data: undefined });
    expect(h.llm.requests.at(-1)!.body.messages.at(-1)).toMatchObject({ role: 'user', content: 'hi there' });
    // Sent through the Open API with the app's tenant token, fetched with the app credentials.
    expect(fs.calls.some((c) => c.path === '/open-apis/auth/v3/tenant_access_token/internal')).toBe(true);
  });

  it('keeps Chinese intact both ways', async () => {
    h.llm.enqueue({ kind: 'text', text: '你好，林小雨！今天的天气很好 🌤️。' });
    const { chatId } = fs.dm(lin, '请用中文回答：今天天气怎么样？');
    await eventually('the Chinese reply', () => shown(chatId).includes('你好，林小雨！今天的天气很好 🌤️。'), 10_000);
    expect(h.llm.requests.at(-1)!.body.messages.at(-1)).toMatchObject({ role: 'user', content: '请用中文回答：今天天气怎么样？' });
    const rows = await h.query<{ text: string }>(
      `SELECT payload->>'text' AS text FROM inbound_messages WHERE channel = 'feishu' AND payload->>'text' LIKE '请用中文%'`,
    );
    expect(rows).toEqual([{ text: '请用中文回答：今天天气怎么样？' }]);
  });

  it('splits a 10,000-character Chinese reply into cards within 4000 with no broken character or code fence', async () => {
    const para = (i: number) => `第${i}段：${'这是一个用于测试消息拆分的中文句子，包含标点符号。'.repeat(12)}😀`;
    const code = ['```ts', ...Array.from({ length: 60 }, (_, i) => `const 变量${i} = "值${i}"; // 注释 ${'字'.repeat(20)}`), '```'].join(
      '\n',
    );
    const paragraphs = Array.from({ length: 30 }, (_, i) => para(i));
    const text = [...paragraphs.slice(0, 15), code, ...paragraphs.slice(15)].join('\n\n');
    expect(text.length).toBeGreaterThan(10_000);
    const chatId = fs.dmChatOf(kai);
    const before = fs.messagesIn(chatId).length;
    h.llm.enqueue({ kind: 'text', text });
    fs.dm(kai, 'write me something long');
    const parts = await eventually(
      'all parts',
      () => {
        const all = shown(chatId, before);
        return all.join('').includes('第29段') && !all.some((t) => t.endsWith('…')) ? all : undefined;
      },
      15_000,
    );
    expect(parts.length).toBeGreaterThanOrEqual(3);
    for (const p of parts) {
      expect(p.length).toBeLessThanOrEqual(4000);
      expect(hasLoneSurrogate(p)).toBe(false);
      expect((p.match(/^```/gm) ?? []).length % 2).toBe(0);
    }
    const squash = (s: string) => s.replace(/```ts|```/g, '').replace(/\s+/g, '');
    expect(squash(parts.join(''))).toBe(squash(text));
  });

  it("gives a stranger's DM a pairing code without calling the model, and lets them chat once approved", async () => {
    const llmCalls = h.llm.requests.length;
    const { chatId } = fs.dm(stranger, '你好？');
    const codeMsg = await eventually('the pairing reply', () => fs.messagesIn(chatId)[0], 10_000);
    const code = /pairing code: ([A-Z2-9]{8})/.exec(codeMsg.current)?.[1];
    expect(code).toBeDefined();
    expect(h.llm.requests.length).toBe(llmCalls);
    expect((await h.api('/v1/pairing/approve', { json: { channel: 'feishu', code } })).status).toBe(200);
    fs.dm(stranger, '现在可以聊天了吗？');
    await eventually('the reply after approval', () => shown(chatId).includes('echo: 现在可以聊天了吗？'), 10_000);
  });

  it('in a group answers an allowlisted member who @-mentions the bot and ignores a message without the mention', async () => {
    const groupId = 'oc_group0000000000000000000000001';
    const llmCalls = h.llm.requests.length;
    const unmentioned = fs.group(groupId, lin, 'just chatting among ourselves', false);
    // The response frame comes only after the handler returned: the gateway has decided about this message.
    await eventually('the unmentioned message acknowledged', () => unmentioned.response?.code === 200, 10_000);
    expect(h.llm.requests.length).toBe(llmCalls);
    expect(
      await h.query(`SELECT 1 FROM inbound_messages WHERE channel = 'feishu' AND payload->>'text' = 'just chatting among ourselves'`),
    ).toEqual([]);
    fs.group(groupId, lin, '你觉得呢？', true);
    await eventually('the group reply', () => shown(groupId).includes('echo: 你觉得呢？'), 10_000);
    expect(shown(groupId)).toEqual(['echo: 你觉得呢？']);
    // The bot's own mention is not part of what the model reads.
    expect(h.llm.requests.at(-1)!.body.messages.at(-1)).toMatchObject({ role: 'user', content: '你觉得呢？' });
  });

  it('ignores a redelivered event (same message id) after it was answered', async () => {
    const { chatId, event } = fs.dm(kai, 'only once please');
    await eventually('the first reply', () => shown(chatId).includes('echo: only once please'), 10_000);
    const llmCalls = h.llm.requests.length;
    fs.redeliver(event);
    await eventually('the redelivery acknowledged', () => event.response?.code === 200, 10_000);
    expect(shown(chatId).filter((t) => t === 'echo: only once please')).toHaveLength(1);
    expect(h.llm.requests.length).toBe(llmCalls);
  });

  it('waits out a rate limit (code 99991400, x-ogw-ratelimit-reset) and sends the reply once', async () => {
    fs.failNextPosts(1, 1);
    const { chatId } = fs.dm(kai, 'are you throttled?');
    await eventually('the reply after the rate limit', () => shown(chatId).includes('echo: are you throttled?'), 15_000);
    const posts = fs.calls.filter((c) => c.method === 'POST' && c.path === '/open-apis/im/v1/messages' && c.body?.receive_id === chatId);
    const [limited, accepted] = posts.slice(-2);
    expect(accepted.at - limited.at).toBeGreaterThanOrEqual(900);
    expect(accepted.body?.uuid).toBe(limited.body?.uuid);
    expect(shown(chatId).filter((t) => t === 'echo: are you throttled?')).toHaveLength(1);
  });

  it('shows an approval as card buttons; a non-approver gets a toast, an approver approves and the tool runs', async () => {
    const chatId = fs.dmChatOf(lin);
    const before = fs.messagesIn(chatId).length;
    const path = 'from-feishu.txt';
    fs.dm(lin, `please save it [tool:file_write ${JSON.stringify({ path, content: '来自飞书' })}]`);
    const card = await eventually(
      'the approval card',
      () =>
        fs
          .messagesIn(chatId)
          .slice(before)
          .find((m) => m.buttons.length > 0),
      10_000,
    );
    expect(card.buttons.map((b) => b.text)).toEqual(['Approve', 'Deny']);
    expect(card.current).toContain('file_write');
    expect(card.current).toContain(path);
    const approve = card.buttons[0].data;
    expect(approve).toMatch(/^ap:.+:a$/);

    const refused = fs.press(stranger, card, approve);
    await eventually('the refusal', () => refused.response, 10_000);
    expect(refused.response).toEqual({
      code: 200,
      data: { toast: { type: 'error', content: 'You are not allowed to decide approvals.' } },
    });
    expect(card.current).toContain('Approval needed');

    const pressed = fs.press(lin, card, approve);
    const reply = await eventually('the reply after approval', () => shown(chatId, before).find((t) => t.startsWith('tool said:')), 15_000);
    expect(reply).toContain(`wrote 12 bytes to ${path}`);
    expect(card.current).toMatch(/^Approved: file_write/);
    expect(card.buttons).toEqual([]);
    expect(pressed.response?.code).toBe(200);
    const approvalId = /^ap:(.+):a$/.exec(approve)![1];
    const { rows } = await h.gateway.app
      .get(DatabaseService)
      .pool.query<{ status: string; decided_by: string }>(`SELECT status, decided_by FROM tool_approvals WHERE id = $1`, [approvalId]);
    expect(rows[0]).toEqual({ status: 'approved', decided_by: `feishu:${lin.openId}` });
  });

  it('is listed by GET /v1/channels as running', async () => {
    const res = await h.api('/v1/channels');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { channels: { id: string; state: string }[] };
    expect(body.channels).toEqual(expect.arrayContaining([expect.objectContaining({ id: 'feishu', state: 'running' })]));
  });

  it('is added by the plugin bundled with nestclaw, through the plugin API (Track A)', async () => {
    const { plugins } = (await (await h.api('/v1/plugins')).json()) as { plugins: Record<string, unknown>[] };
    expect(plugins).toEqual([
      expect.objectContaining({
        name: 'feishu',
        origin: 'bundled',
        track: 'trusted',
        state: 'loaded',
        contributes: expect.objectContaining({ channels: ['feishu'] }),
      }),
    ]);
  });

  it('shows the channel as failed, with the reason, when its settings cannot make an adapter', async () => {
    const bad = await startHarness({ config: { channels: { feishu: { enabled: true, domain: fs.url } } } });
    try {
      const body = (await (await bad.api('/v1/channels')).json()) as { channels: { id: string; state: string; error: string | null }[] };
      expect(body.channels).toEqual([expect.objectContaining({ id: 'feishu', state: 'failed', error: expect.stringMatching(/app_id/) })]);
      const { plugins } = (await (await bad.api('/v1/plugins')).json()) as { plugins: { name: string; state: string }[] };
      expect(plugins).toEqual([expect.objectContaining({ name: 'feishu', state: 'failed' })]);
    } finally {
      await bad.stop();
    }
  });

  it('shows the channel as failed, with the reason, when Feishu refuses the app secret', async () => {
    const wrong = await startHarness({
      config: { channels: { feishu: { enabled: true, app_id: fs.appId, app_secret: 'not-the-secret', domain: fs.url } } },
    });
    try {
      const feishu = await eventually(
        'the failed state',
        async () => {
          const body = (await (await wrong.api('/v1/channels')).json()) as {
            channels: { id: string; state: string; error: string | null }[];
          };
          return body.channels.find((c) => c.id === 'feishu' && c.state === 'failed');
        },
        15_000,
      );
      expect(feishu.error).toMatch(/Feishu refused the long connection/);
      expect(feishu.error).not.toContain('not-the-secret');
    } finally {
      await wrong.stop();
    }
  });
});
