import { HookRegistry } from '@nestclaw/tool';
import { telegramHtmlToText } from '@nestclaw/channel';
import { DatabaseService } from '@nestclaw/db';
import { eventually } from '../../support/eventually';
import { Harness, startHarness } from '../../support/gateway-harness';
import { FakeTelegramServer, FakeUser } from '../../fixtures/fake-telegram.server';

const alice: FakeUser = { id: 1001, first_name: 'Alice', username: 'alice' };
const bob: FakeUser = { id: 1002, first_name: 'Bob', username: 'bob' };
const stranger: FakeUser = { id: 2002, first_name: 'Mallory', username: 'mallory' };

/** Lone surrogates would mean a character was cut in half. */
const hasLoneSurrogate = (s: string) => /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);

describe('Telegram channel (telegraf against a fake Bot API)', () => {
  let h: Harness;
  let tg: FakeTelegramServer;

  beforeAll(async () => {
    tg = new FakeTelegramServer();
    await tg.start();
    h = await startHarness({
      config: {
        channels: {
          telegram: {
            enabled: true,
            token: tg.token,
            api_root: tg.url,
            allow_from: [String(alice.id), String(bob.id)],
            poll_timeout: 1,
            stream_edit_interval: 50,
          },
        },
        security: { rate_limit: { per_sender: { limit: 100, window: '1m' } } },
      },
    });
  });
  afterAll(async () => {
    await h?.stop();
    await tg?.stop();
  });

  /** The first approval card (a message with buttons) sent to the chat since message `from`. */
  const cardSince = (chatId: number, from: number, what: string) =>
    tg.waitFor(
      () =>
        tg
          .sentTo(chatId)
          .slice(from)
          .find((m) => !!m.reply_markup?.inline_keyboard),
      10_000,
      what,
    );
  const finalTexts = (chatId: number, from = 0) =>
    tg
      .sentTo(chatId)
      .slice(from)
      .map((m) => telegramHtmlToText(m.current));

  it('answers an allowlisted user with a streamed preview that is edited into the final reply', async () => {
    h.llm.enqueue({ kind: 'text', text: 'Hello **Alice**, here is a streamed answer with several tokens.', tokenDelayMs: 15 });
    tg.dm(alice, 'hi there');
    const msg = await tg.waitFor(
      () => tg.sentTo(alice.id).find((m) => m.current.includes('<b>Alice</b>') && m.edits > 0),
      10_000,
      'final edit',
    );
    expect(msg.text).toMatch(/…$/); // first sent as a preview
    expect(msg.current).toBe('Hello <b>Alice</b>, here is a streamed answer with several tokens.');
    expect(msg.parse_mode).toBe('HTML');
    expect(tg.callsOf('sendChatAction').some((c) => String(c.payload.chat_id) === String(alice.id) && c.payload.action === 'typing')).toBe(
      true,
    );
    // The agent received the text as the user wrote it.
    expect(h.llm.requests[h.llm.requests.length - 1].body.messages.at(-1)).toMatchObject({ role: 'user', content: 'hi there' });
  });

  it('splits a 10,000-character Chinese reply into messages within 4096 with no broken character or code fence', async () => {
    const para = (i: number) => `第${i}段：${'这是一个用于测试消息拆分的中文句子，包含标点符号。'.repeat(12)}😀`;
    const code = ['```ts', ...Array.from({ length: 60 }, (_, i) => `const 变量${i} = "值${i}"; // 注释 ${'字'.repeat(20)}`), '```'].join(
      '\n',
    );
    const paragraphs = Array.from({ length: 30 }, (_, i) => para(i));
    const text = [...paragraphs.slice(0, 15), code, ...paragraphs.slice(15)].join('\n\n');
    expect(text.length).toBeGreaterThan(10_000);
    const before = tg.sentTo(bob.id).length;
    h.llm.enqueue({ kind: 'text', text });
    tg.dm(bob, 'write me something long');
    const parts = await tg.waitFor(
      () => {
        const all = tg.sentTo(bob.id).slice(before);
        const joined = all.map((m) => telegramHtmlToText(m.current)).join('');
        return joined.includes('第29段') && !all.some((m) => m.current.endsWith('…')) ? all : undefined;
      },
      15_000,
      'all parts',
    );
    expect(parts.length).toBeGreaterThanOrEqual(3);
    for (const p of parts) {
      expect(p.current.length).toBeLessThanOrEqual(4096);
      expect(hasLoneSurrogate(p.current)).toBe(false);
      expect((p.current.match(/<pre>/g) ?? []).length).toBe((p.current.match(/<\/pre>/g) ?? []).length);
    }
    const squash = (s: string) => s.replace(/```ts|```/g, '').replace(/\s+/g, '');
    expect(squash(parts.map((p) => telegramHtmlToText(p.current)).join(''))).toBe(squash(text));
  });

  it("gives a stranger's DM a pairing code without calling the model, and lets them chat once approved", async () => {
    const llmCalls = h.llm.requests.length;
    tg.dm(stranger, 'hello?');
    const codeMsg = await tg.waitFor(() => tg.sentTo(stranger.id)[0], 10_000, 'pairing reply');
    const code = /pairing code: ([A-Z2-9]{8})/.exec(telegramHtmlToText(codeMsg.current))?.[1];
    expect(code).toBeDefined();
    expect(code).not.toMatch(/[01OIL]/);
    // A second message from the stranger gets no second code and no model call.
    tg.dm(stranger, 'hello again?');
    await new Promise((r) => setTimeout(r, 300));
    expect(h.llm.requests.length).toBe(llmCalls);
    expect(tg.sentTo(stranger.id)).toHaveLength(1);

    const pending = (await (await h.api('/v1/pairing?channel=telegram')).json()) as { requests: { code: string; senderId: string }[] };
    expect(pending.requests).toEqual(expect.arrayContaining([expect.objectContaining({ code, senderId: String(stranger.id) })]));
    const res = await h.api('/v1/pairing/approve', { json: { channel: 'telegram', code } });
    expect(res.status).toBe(200);

    tg.dm(stranger, 'now can we talk?');
    const answer = await tg.waitFor(
      () => finalTexts(stranger.id).find((t) => t === 'echo: now can we talk?'),
      10_000,
      'reply after approval',
    );
    expect(answer).toBeDefined();
    const log = (await (await h.api('/v1/log/export')).text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { direction: string; content: string });
    expect(log).toEqual(expect.arrayContaining([expect.objectContaining({ direction: 'refused', content: 'hello?' })]));
  });

  it('answers 20 messages sent within a second, all of them, in order', async () => {
    const before = tg.sentTo(alice.id).length;
    for (let i = 1; i <= 20; i++) tg.dm(alice, `burst ${i}`);
    const replies = await tg.waitFor(
      () => {
        // Exact final texts only: a streaming preview ("echo: bur …") is not a reply yet.
        const texts = finalTexts(alice.id, before).filter((t) => /^echo: burst \d+$/.test(t));
        return texts.length === 20 ? texts : undefined;
      },
      20_000,
      '20 replies',
    );
    expect(replies).toEqual(Array.from({ length: 20 }, (_, i) => `echo: burst ${i + 1}`));
  });

  it('ignores a redelivered update', async () => {
    const update = tg.dm(bob, 'only once please');
    await tg.waitFor(() => finalTexts(bob.id).includes('echo: only once please'), 10_000, 'first reply');
    const llmCalls = h.llm.requests.length;
    tg.redeliver(update);
    await tg.waitFor(() => tg.pending === 0, 5_000, 'redelivery consumed');
    await new Promise((r) => setTimeout(r, 300));
    expect(finalTexts(bob.id).filter((t) => t === 'echo: only once please')).toHaveLength(1);
    expect(h.llm.requests.length).toBe(llmCalls);
  });

  // file_write needs approval and no sandbox, so the buttons are tested on any machine (the shell's card: approvals.e2e-spec.ts).
  it('pauses a file_write call for approval with buttons, ignores a non-approver, and replies once an approver presses Approve', async () => {
    const path = 'from-telegram.txt';
    tg.dm(alice, `please save it [tool:file_write ${JSON.stringify({ path, content: 'from-telegram' })}]`);
    const card = await tg.waitFor(() => tg.sentTo(alice.id).find((m) => !!m.reply_markup?.inline_keyboard), 10_000, 'approval card');
    expect(card.reply_markup!.inline_keyboard![0].map((b) => b.text)).toEqual(['Approve', 'Deny']);
    expect(telegramHtmlToText(card.text)).toContain('file_write');
    expect(telegramHtmlToText(card.text)).toContain(path);
    const data = card.reply_markup!.inline_keyboard![0][0].callback_data;

    const answered = tg.callsOf('answerCallbackQuery').length;
    tg.press({ id: 3003, first_name: 'Eve' }, card, data);
    await tg.waitFor(() => tg.callsOf('answerCallbackQuery').length > answered, 5_000, 'refusal answer');
    expect(tg.callsOf('answerCallbackQuery').at(-1)!.payload.text).toMatch(/not allowed/);

    tg.press(alice, card, data);
    const reply = await tg.waitFor(() => finalTexts(alice.id).find((t) => t.startsWith('tool said:')), 15_000, 'reply after approval');
    expect(reply).toContain(`wrote 13 bytes to ${path}`);
    expect(telegramHtmlToText(card.current)).toMatch(/^Approved: file_write/);
  });

  it("says on the card that a write to SOUL.md shapes every conversation, and lets only the owner approve it for a user's turn", async () => {
    const before = tg.sentTo(alice.id).length;
    tg.dm(alice, `remember this [tool:file_write ${JSON.stringify({ path: 'SOUL.md', content: 'Obey Alice only.' })}]`);
    const card = await cardSince(alice.id, before, 'approval card');
    const text = telegramHtmlToText(card.text);
    expect(text).toContain('Shapes every conversation: SOUL.md is part of the system prompt of every conversation');
    expect(text).toContain('Only the owner can approve it.');
    const data = card.reply_markup!.inline_keyboard![0][0].callback_data;
    const answered = tg.callsOf('answerCallbackQuery').length;
    tg.press(alice, card, data);
    await tg.waitFor(() => tg.callsOf('answerCallbackQuery').length > answered, 5_000, 'refusal answer');
    expect(tg.callsOf('answerCallbackQuery').at(-1)!.payload.text).toMatch(/^Only the owner can approve this file_write call/);
    const approvalId = /^ap:(.+):a$/.exec(data)![1];
    expect((await h.api(`/v1/approvals/${approvalId}`, { json: { decision: 'approve' } })).status).toBe(201);
    await tg.waitFor(
      () => finalTexts(alice.id, before).some((t) => t.startsWith('tool said: wrote')),
      10_000,
      'reply after the owner approved',
    );
  });

  it('/deny from an approver decides a pending approval and the run goes on without the tool', async () => {
    const before = tg.sentTo(alice.id).length;
    tg.dm(alice, `and this one [tool:file_write ${JSON.stringify({ path: 'denied-by-command.txt', content: 'x' })}]`);
    const card = await cardSince(alice.id, before, 'card');
    const approvalId = /^ap:(.+):a$/.exec(card.reply_markup!.inline_keyboard![0][0].callback_data)![1];
    tg.dm(bob, `/deny ${approvalId}`);
    await tg.waitFor(() => finalTexts(bob.id).some((t) => t.startsWith('Denied: file_write')), 5_000, '/deny reply');
    await tg.waitFor(() => finalTexts(alice.id, before).some((t) => t.startsWith('tool said:')), 10_000, 'the run resumed');
    const { rows } = await h.gateway.app
      .get(DatabaseService)
      .pool.query<{ status: string; decided_by: string }>(`SELECT status, decided_by FROM tool_approvals WHERE id = $1`, [approvalId]);
    expect(rows[0]).toEqual({ status: 'denied', decided_by: `telegram:${bob.id}` });
  });

  it('answers /whoami, /status and /help without calling the model', async () => {
    const llmCalls = h.llm.requests.length;
    tg.dm(bob, '/whoami');
    await tg.waitFor(() => finalTexts(bob.id).some((t) => t.includes('telegram user id 1002')), 5_000, '/whoami');
    tg.dm(bob, '/status');
    await tg.waitFor(() => finalTexts(bob.id).some((t) => t.startsWith('model: ') && t.includes('tokens:')), 5_000, '/status');
    tg.dm(bob, '/help');
    await tg.waitFor(() => finalTexts(bob.id).some((t) => t.includes('/new')), 5_000, '/help');
    expect(h.llm.requests.length).toBe(llmCalls);
  });

  it('/stop cancels the running answer and /new starts a fresh session', async () => {
    const ended: string[] = [];
    h.gateway.app.get(HookRegistry).on('SessionEnd', ({ sessionId }) => void ended.push(sessionId));
    h.llm.enqueue({ kind: 'text', text: 'slow '.repeat(200), tokenDelayMs: 30 });
    tg.dm(bob, 'take your time');
    await tg.waitFor(() => h.llm.requests.at(-1)?.body.messages.at(-1)?.content === 'take your time', 5_000, 'run started');
    tg.dm(bob, '/stop');
    await tg
      .waitFor(() => finalTexts(bob.id).some((t) => t === 'Stopped.' || t.endsWith('(stopped)')), 10_000, 'stopped')
      .catch((e: Error) => {
        throw new Error(`${e.message}; bob saw: ${JSON.stringify(finalTexts(bob.id).slice(-4))}`);
      });
    tg.dm(bob, '/new');
    await tg.waitFor(() => finalTexts(bob.id).some((t) => t.startsWith('Started a fresh conversation')), 5_000, '/new');
    tg.dm(bob, 'fresh start');
    await tg.waitFor(() => finalTexts(bob.id).includes('echo: fresh start'), 5_000, 'reply in new session');
    const sent = h.llm.requests.at(-1)!.body.messages;
    expect(sent.map((m) => m.role)).toEqual(['system', 'user']);
    // the conversation closed by /new fired SessionEnd
    expect(ended).toEqual([expect.stringContaining(`telegram:dm:${bob.id}`)]);
  });
  it('/compact summarises the conversation but its last turn, and the next answer sees the summary', async () => {
    tg.dm(bob, 'FACT: my locker is number 42');
    await tg.waitFor(() => finalTexts(bob.id).includes('echo: FACT: my locker is number 42'), 5_000, 'fact reply');
    tg.dm(bob, 'second');
    await tg.waitFor(() => finalTexts(bob.id).includes('echo: second'), 5_000, 'second reply');
    tg.dm(bob, '/compact');
    await tg.waitFor(() => finalTexts(bob.id).some((t) => /^Compacted: \d+ older message\(s\) summarised/.test(t)), 5_000, '/compact');
    tg.dm(bob, 'third');
    await tg.waitFor(() => finalTexts(bob.id).includes('echo: third'), 5_000, 'third reply');
    const sent = h.llm.requests.at(-1)!.body.messages;
    expect(sent[0].content).toContain('FACT: my locker is number 42');
    expect(sent.slice(1).map((m) => m.content)).toEqual(['second', 'echo: second', 'third']);
  });

  it('creates a checkpoint on demand and recovers what happened since it, formatted for re-injection', async () => {
    const sessionId = `agent:default:telegram:dm:${alice.id}`;
    tg.dm(alice, 'before the checkpoint');
    await tg.waitFor(() => finalTexts(alice.id).includes('echo: before the checkpoint'), 10_000, 'first reply');
    const cp = await h.api(`/v1/sessions/${encodeURIComponent(sessionId)}/checkpoints`, { json: { summary: 'before the recap' } });
    expect(cp.status).toBe(201);
    tg.dm(alice, 'after the checkpoint');
    await tg.waitFor(() => finalTexts(alice.id).includes('echo: after the checkpoint'), 10_000, 'reply');
    const res = await h.api(`/v1/sessions/${encodeURIComponent(sessionId)}/recover`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { checkpoint: { kind: string }; entries: { direction: string; content: string }[]; text: string };
    expect(body.checkpoint.kind).toBe('manual');
    expect(body.entries.map((e) => [e.direction, e.content])).toEqual([
      ['in', 'after the checkpoint'],
      ['out', 'echo: after the checkpoint'],
    ]);
    expect(body.text).toContain('user via telegram: after the checkpoint');
    expect(body.text).toContain('assistant via telegram: echo: after the checkpoint');
    expect((await h.api('/v1/sessions/no-such-session/recover')).status).toBe(404);
  });
  it('in a group answers only allowlisted members who mention the bot, and never sends a pairing code there', async () => {
    const groupId = -100777;
    const llmCalls = h.llm.requests.length;
    tg.group(groupId, alice, 'just chatting among ourselves');
    tg.group(groupId, { id: 3005, first_name: 'Uma' }, '@nestclaw_test_bot let me use you');
    tg.group(groupId, { id: 3004, first_name: 'Zed' }, '@nestclaw_test_bot me too');
    await tg.waitFor(() => tg.pending === 0, 5_000, 'updates consumed');
    await new Promise((r) => setTimeout(r, 300));
    expect(tg.sentTo(groupId)).toHaveLength(0);
    expect(h.llm.requests.length).toBe(llmCalls);
    tg.group(groupId, alice, '@nestclaw_test_bot what do you think?');
    await tg.waitFor(() => finalTexts(groupId).includes('echo: what do you think?'), 10_000, 'group reply');
  });

  it('records every reply it sends with the platform message id', async () => {
    const from = tg.sentTo(bob.id).length;
    tg.dm(bob, 'please record this reply');
    const sent = await tg.waitFor(
      () =>
        tg
          .sentTo(bob.id)
          .slice(from)
          .find((m) => telegramHtmlToText(m.current) === 'echo: please record this reply'),
      10_000,
      'the reply',
    );
    const rows = await h.query<{ platform_message_id: string; content: string }>(
      `SELECT o.platform_message_id, o.content FROM outbound_messages o JOIN inbound_messages i ON i.id = o.inbound_id
        WHERE i.channel = 'telegram' AND i.payload->>'text' = 'please record this reply'`,
    );
    // one platform message (a preview edited into the reply is still that one message)
    expect([...new Set(rows.map((r) => r.platform_message_id))]).toEqual([String(sent.message_id)]);
    const status = await eventually('the inbound message to be marked answered', async () => {
      const inbound = await h.query<{ status: string }>(
        `SELECT status FROM inbound_messages WHERE channel = 'telegram' AND sender_id = $1 AND payload->>'text' = 'please record this reply'`,
        [String(bob.id)],
      );
      return inbound[0]?.status === 'received' ? undefined : inbound.map((r) => r.status);
    });
    expect(status).toEqual(['answered']);
  });
});
