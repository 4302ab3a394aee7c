import { telegramHtmlToText } from '@nestclaw/channel';
import { Harness, startHarness } from '../../support/gateway-harness';
import { DiscordUser, FakeDiscordServer } from '../../fixtures/fake-discord.server';
import { FakeTelegramServer, FakeUser } from '../../fixtures/fake-telegram.server';

const aliceTg: FakeUser = { id: 8001, first_name: 'Alice' };
const aliceDc: DiscordUser = { id: '800000000000000001', username: 'alice' };
const bobTg: FakeUser = { id: 8002, first_name: 'Bob' };

describe('routing: identity links across platforms and bindings choosing the agent', () => {
  let h: Harness;
  let tg: FakeTelegramServer;
  let dc: FakeDiscordServer;

  beforeAll(async () => {
    tg = new FakeTelegramServer();
    dc = new FakeDiscordServer();
    await Promise.all([tg.start(), dc.start()]);
    h = await startHarness({
      config: {
        agents: { default: {}, concierge: { system_prompt: 'You are the concierge agent.' } },
        channels: {
          telegram: { enabled: true, token: tg.token, api_root: tg.url, allow_from: [aliceTg.id, bobTg.id], poll_timeout: 1 },
          discord: { enabled: true, token: dc.token, api_root: dc.url, allow_from: [aliceDc.id] },
        },
        session: { dm_scope: 'per-peer', identity_links: { alice: [`telegram:${aliceTg.id}`, `discord:${aliceDc.id}`] } },
        bindings: [{ agent: 'concierge', match: { channel: 'telegram', peer: { kind: 'dm', id: String(bobTg.id) } } }],
      },
    });
    await dc.waitFor(() => dc.connected, 10_000, 'discord gateway');
  });
  afterAll(async () => {
    await h?.stop();
    await tg?.stop();
    await dc?.stop();
  });

  it('continues one conversation when a linked person moves from Telegram to Discord', async () => {
    tg.dm(aliceTg, 'my favourite colour is teal');
    await tg.waitFor(
      () => tg.sentTo(aliceTg.id).some((m) => telegramHtmlToText(m.current).startsWith('echo: my favourite')),
      10_000,
      'telegram reply',
    );
    const { channelId } = dc.dm(aliceDc, 'what did I just tell you?');
    await dc.waitFor(() => dc.postedTo(channelId).some((m) => m.current === 'echo: what did I just tell you?'), 10_000, 'discord reply');
    const sent = h.llm.requests.at(-1)!.body.messages.map((m) => `${m.role}:${m.content}`);
    expect(sent).toEqual(expect.arrayContaining(['user:my favourite colour is teal', 'user:what did I just tell you?']));
    const { sessions } = (await (await h.api('/v1/sessions')).json()) as { sessions: { id: string }[] };
    expect(sessions.map((s) => s.id)).toContain('agent:default:dm:alice');
  });

  it('answers a peer bound to another agent with that agent', async () => {
    tg.dm(bobTg, 'hello concierge');
    await tg.waitFor(() => tg.sentTo(bobTg.id).some((m) => telegramHtmlToText(m.current) === 'echo: hello concierge'), 10_000, 'reply');
    const req = h.llm.requests.find((r) => r.body.messages.at(-1)?.content === 'hello concierge')!;
    expect(req.body.messages[0]).toMatchObject({ role: 'system', content: expect.stringMatching(/^You are the concierge agent\.\n/) });
  });
});
