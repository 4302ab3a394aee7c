import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { telegramHtmlToText } from '@nestclaw/channel';
import { TmuxDriver } from '@nestclaw/cli-bridge';
import { DiscordUser, FakeDiscordServer } from '../../fixtures/fake-discord.server';
import { FakeTelegramServer, FakeUser } from '../../fixtures/fake-telegram.server';
import { eventually } from '../../support/eventually';
import { describeWithHostTools } from '../../support/host-tools';
import { Harness, startHarness } from '../../support/gateway-harness';

const alice: FakeUser = { id: 4101, first_name: 'Alice', username: 'alice' };
const dana: DiscordUser = { id: '700000000000004101', username: 'dana' };
const FAKE_CLI = join(__dirname, '../../fixtures/fake-cli.js');
/** The answer the fake CLI prints for a message with `long` in it (fake-cli.js's longLine, 400 times, then END). */
const LONG_ANSWER = [
  ...Array.from({ length: 400 }, (_, i) => `第${i}行：分析结果 line ${i} of the long answer, 中文保持完整 ✓`),
  'END',
].join('\n');

/**
 * Issue 26 item 5 through the built gateway, the fake Telegram and Discord APIs and the fake CLI in a
 * real tmux: what the CLI is doing shows as an edited preview (no ANSI, no echo) that becomes the
 * answer; a very long answer arrives as a short head and the whole text as a document, once.
 */
describeWithHostTools(['tmux'], 'CLI bridge: progress as a preview, a very long answer as a file', () => {
  let h: Harness;
  let tg: FakeTelegramServer;
  let dc: FakeDiscordServer;
  let workDir: string;
  let tmux: TmuxDriver;

  beforeAll(async () => {
    tg = new FakeTelegramServer();
    dc = new FakeDiscordServer();
    await tg.start();
    await dc.start();
    workDir = mkdtempSync(join(tmpdir(), 'nestclaw-cli-progress-'));
    h = await startHarness({
      env: { NESTCLAW_TMUX_SOCKET: `nestclaw-progress-test-${process.pid}` },
      config: {
        channels: {
          telegram: {
            enabled: true,
            token: tg.token,
            api_root: tg.url,
            allow_from: [String(alice.id)],
            poll_timeout: 1,
            stream_edit_interval: 100,
          },
          discord: { enabled: true, token: dc.token, api_root: dc.url, allow_from: [dana.id], stream_edit_interval: 100 },
        },
        security: { rate_limit: { per_sender: { limit: 100, window: '1m' } } },
        clis: { fake: { command: process.execPath, args: [FAKE_CLI], allowed_dirs: [workDir], done_after: '800ms', watchdog: '10s' } },
      },
    });
    await dc.waitFor(() => dc.connected, 10_000, 'Discord gateway connection');
    tmux = h.gateway.app.get(TmuxDriver);
  });
  afterAll(async () => {
    for (const s of (await tmux?.list()) ?? []) await tmux.kill(s);
    await h?.stop();
    await tg?.stop();
    await dc?.stop();
    rmSync(workDir, { recursive: true, force: true });
  });

  /** Waits until the inbound message whose text is `text` is answered, and returns its outbound rows. */
  const answered = async (channel: string, text: string) => {
    await eventually(
      `${text} answered`,
      async () => {
        const rows = await h.query<{ status: string }>(`SELECT status FROM inbound_messages WHERE channel = $1 AND payload->>'text' = $2`, [
          channel,
          text,
        ]);
        return rows.length === 1 && rows[0].status === 'answered';
      },
      30_000,
    );
    return h.query<{ part: number; status: string; content: string }>(
      `SELECT o.part, o.status, o.content FROM outbound_messages o JOIN inbound_messages i ON i.id = o.inbound_id
        WHERE i.channel = $1 AND i.payload->>'text' = $2 ORDER BY o.id`,
      [channel, text],
    );
  };

  describe('on Telegram', () => {
    const texts = (from: number) =>
      tg
        .sentTo(alice.id)
        .slice(from)
        .map((m) => telegramHtmlToText(m.current));

    it('binds the chat to the fake CLI', async () => {
      const from = tg.sentTo(alice.id).length;
      tg.dm(alice, '/cli use fake');
      await tg.waitFor(() => texts(from).find((t) => t.startsWith('Bound to fake')), 15_000, 'bind reply');
    });

    it('edits one preview message with what the CLI is doing (no escapes, no echo of the message), then edits the answer into it, sent once', async () => {
      const from = tg.sentTo(alice.id).length;
      const edits = tg.callsOf('editMessageText').length;
      const input = 'progress 任务-7731';
      tg.dm(alice, input);
      const rows = await answered('telegram', input);
      const sent = tg.sentTo(alice.id).slice(from);
      expect(sent).toHaveLength(1);
      const preview = sent[0];
      const shown = tg
        .callsOf('editMessageText')
        .slice(edits)
        .filter((c) => Number(c.payload.message_id) === preview.message_id)
        .map((c) => telegramHtmlToText(String(c.payload.text)));
      // The preview moved with the CLI: its steps and its spinner's label, as plain text.
      expect(shown.some((t) => t.includes('Reading src/app.ts'))).toBe(true);
      expect(shown.some((t) => t.includes('3 of 12 tests done'))).toBe(true);
      expect(shown.some((t) => /^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] (Running npm test|Checking 12 tests|Finishing)…/m.test(t))).toBe(true);
      for (const t of shown) {
        expect(t).not.toContain('\x1b');
        expect(t).not.toContain('任务-7731');
      }
      expect(telegramHtmlToText(preview.current)).toBe('Reading src/app.ts\nRunning npm test\n3 of 12 tests done\nall 12 tests pass');
      expect(rows).toEqual([expect.objectContaining({ part: 0, status: 'sent' })]);
    }, 40_000);

    it('sends a very long answer as a short head and the whole text as answer-<time>.md, Chinese intact, once', async () => {
      const from = tg.sentTo(alice.id).length;
      const input = 'long 长答案 please';
      tg.dm(alice, input);
      const rows = await answered('telegram', input);
      const sent = tg.sentTo(alice.id).slice(from);
      const docs = sent.filter((m) => m.document);
      expect(docs).toHaveLength(1);
      expect(docs[0].document!.name).toMatch(/^answer-\d{8}-\d{6}\.md$/);
      expect(docs[0].document!.content).toBe(LONG_ANSWER);
      const heads = sent.filter((m) => !m.document);
      expect(heads).toHaveLength(1);
      const head = telegramHtmlToText(heads[0].current);
      expect(head.startsWith('第0行：分析结果 line 0')).toBe(true);
      expect(head.length).toBeLessThan(1000);
      expect(head).toContain(`is in ${docs[0].document!.name}.`);
      // One sendDocument (a placeholder) edited into the answer, both recorded: a restart edits it again, never sends another.
      expect(tg.callsOf('sendDocument').filter((c) => c.payload.chat_id === String(alice.id))).toHaveLength(1);
      expect(rows.map((r) => [r.part, r.status])).toEqual([
        [0, 'sent'],
        [1, 'sent'],
      ]);
      expect(rows[1].content).toBe(`[file] ${docs[0].document!.name}`);
    }, 40_000);
  });

  describe('on Discord', () => {
    const chat = () => dc.dmChannelOf(dana);

    it('binds the DM to the fake CLI', async () => {
      const from = dc.postedTo(chat()).length;
      dc.dm(dana, '/cli use fake');
      await dc.waitFor(
        () =>
          dc
            .postedTo(chat())
            .slice(from)
            .find((m) => m.current.startsWith('Bound to fake')),
        15_000,
        'bind reply',
      );
    });

    it('shows progress in a preview that becomes the answer, sent once', async () => {
      const from = dc.postedTo(chat()).length;
      const input = 'progress 任务-8842';
      dc.dm(dana, input);
      const progress = await dc.waitFor(
        () =>
          dc
            .postedTo(chat())
            .slice(from)
            .find((m) => m.current.includes('Reading src/app.ts')),
        15_000,
        'a progress preview',
      );
      expect(progress.current).not.toContain('任务-8842');
      await answered('discord', input);
      const posted = dc.postedTo(chat()).slice(from);
      expect(posted).toHaveLength(1);
      expect(posted[0].current).toBe('Reading src/app.ts\nRunning npm test\n3 of 12 tests done\nall 12 tests pass');
    }, 40_000);

    it('sends a very long answer as a short head and the whole text as an attached answer-<time>.md, Chinese intact, once', async () => {
      const from = dc.postedTo(chat()).length;
      const input = 'long 长答案 please';
      dc.dm(dana, input);
      const rows = await answered('discord', input);
      const posted = dc.postedTo(chat()).slice(from);
      const withFile = posted.filter((m) => m.files.length);
      expect(withFile).toHaveLength(1);
      expect(withFile[0].files).toHaveLength(1);
      expect(withFile[0].files[0].name).toMatch(/^answer-\d{8}-\d{6}\.md$/);
      expect(withFile[0].files[0].content).toBe(LONG_ANSWER);
      const heads = posted.filter((m) => !m.files.length);
      expect(heads).toHaveLength(1);
      expect(heads[0].current.startsWith('第0行：分析结果 line 0')).toBe(true);
      expect(heads[0].current).toContain(`is in ${withFile[0].files[0].name}.`);
      expect(rows.map((r) => [r.part, r.status])).toEqual([
        [0, 'sent'],
        [1, 'sent'],
      ]);
    }, 40_000);
  });
});
