import { eventually } from '../../support/eventually';
import { Harness, startHarness } from '../../support/gateway-harness';
import { FakeTelegramServer, FakeUser } from '../../fixtures/fake-telegram.server';

const stranger: FakeUser = { id: 3003, first_name: '小明', username: 'xiaoming' };

interface Channel {
  id: string;
  state: string;
  error: string | null;
  receiver: { replica: string; self: boolean; since: string } | null;
  lastInboundAt: string | null;
  lastOutboundAt: string | null;
  pendingPairings: number;
}

/** `GET /v1/channels`: a real gateway polling a fake Telegram Bot API. */
describe('GET /v1/channels', () => {
  let h: Harness;
  let tg: FakeTelegramServer;
  const channels = async () => ((await (await h.api('/v1/channels')).json()) as { channels: Channel[] }).channels;
  const telegram = async () => (await channels()).find((c) => c.id === 'telegram')!;

  beforeAll(async () => {
    tg = new FakeTelegramServer();
    await tg.start();
    h = await startHarness({
      config: {
        channels: {
          telegram: { enabled: true, token: tg.token, api_root: tg.url, allow_from: [], poll_timeout: 1 },
          // Enabled without its token: the adapter cannot be built, and the gateway runs on without it.
          discord: { enabled: true },
        },
      },
    });
  });
  afterAll(async () => {
    await h?.stop();
    await tg?.stop();
  });

  it('lists the configured channel as running on this replica, with no events yet', async () => {
    const cluster = (await (await h.api('/v1/cluster')).json()) as { self: string };
    const tgState = await eventually('telegram to be running', async () => {
      const c = await telegram();
      return c?.state === 'running' && c;
    });
    expect((await channels()).map((c) => c.id)).toEqual(['discord', 'telegram']);
    expect(tgState).toMatchObject({
      error: null,
      receiver: { replica: cluster.self, self: true },
      lastInboundAt: null,
      lastOutboundAt: null,
      pendingPairings: 0,
    });
  });

  it('lists a channel enabled in config that could not be set up as failed, with the reason', async () => {
    expect((await channels()).find((c) => c.id === 'discord')).toEqual({
      id: 'discord',
      state: 'failed',
      error: 'channels.discord.token is not set',
      receiver: null,
      lastInboundAt: null,
      lastOutboundAt: null,
      pendingPairings: 0,
    });
  });

  it("counts a stranger's pending pairing request and shows the last inbound and outbound event", async () => {
    const before = Date.now() - 1000;
    tg.dm(stranger, '你好');
    await tg.waitFor(() => tg.sentTo(stranger.id).length > 0, 10_000, 'the pairing code reply');
    const c = await eventually('the pending pairing to count', async () => {
      const now = await telegram();
      return now.pendingPairings === 1 && now.lastOutboundAt !== null && now;
    });
    expect(Date.parse(c.lastInboundAt!)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(c.lastOutboundAt!)).toBeGreaterThanOrEqual(Date.parse(c.lastInboundAt!));
  });

  it('no longer counts a request once denied, and a second deny of the same code is a 404', async () => {
    const { requests } = (await (await h.api('/v1/pairing')).json()) as {
      requests: { channel: string; code: string; senderName: string }[];
    };
    const mine = requests.find((r) => r.channel === 'telegram')!;
    expect(mine.senderName).toBe('xiaoming');
    const denied = await h.api('/v1/pairing/deny', { json: { channel: 'telegram', code: mine.code } });
    expect(denied.status).toBe(200);
    expect(await denied.json()).toMatchObject({ denied: true, request: { code: mine.code, deniedBy: 'owner' } });
    expect((await telegram()).pendingPairings).toBe(0);
    const again = await h.api('/v1/pairing/deny', { json: { channel: 'telegram', code: mine.code } });
    expect(again.status).toBe(404);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe('not_found');
    // Denied, not allowed: the stranger's next message gets a new code, not an answer.
    const sent = tg.sentTo(stranger.id).length;
    tg.dm(stranger, 'still there?');
    const reply = await tg.waitFor(() => tg.sentTo(stranger.id)[sent], 10_000, 'the reply to the denied stranger');
    expect(reply.text).not.toContain(mine.code);
    await eventually('a new pending request', async () => (await telegram()).pendingPairings === 1);
  });

  it('records who denied a request (the token that decided) and lists denied requests with it', async () => {
    const pairCode = ((await (await h.api('/v1/pair/codes', { json: { scopes: ['admin'] } })).json()) as { code: string }).code;
    const paired = await fetch(`${h.gateway.url}/v1/pair`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code: pairCode, name: 'ops-laptop' }),
    });
    const { token } = (await paired.json()) as { token: string };
    const { requests } = (await (await h.api('/v1/pairing?channel=telegram')).json()) as { requests: { code: string; deniedBy: null }[] };
    expect(requests).toHaveLength(1);
    expect(requests[0].deniedBy).toBeNull();
    const res = await fetch(`${h.gateway.url}/v1/pairing/deny`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ channel: 'telegram', code: requests[0].code }),
    });
    expect(res.status).toBe(200);
    const list = (await (await h.api('/v1/pairing?channel=telegram&status=denied')).json()) as {
      requests: { code: string; senderName: string; deniedBy: string; deniedAt: string }[];
    };
    // Newest first: this denial by the paired admin token, then the owner's from the test before.
    expect(list.requests.map((r) => r.deniedBy)).toEqual(['ops-laptop', 'owner']);
    expect(list.requests[0]).toMatchObject({ code: requests[0].code, senderName: 'xiaoming' });
    expect(Date.parse(list.requests[0].deniedAt)).toBeGreaterThanOrEqual(Date.parse(list.requests[1].deniedAt));
  });

  it('refuses a request without a token', async () => {
    const res = await fetch(`${h.gateway.url}/v1/channels`);
    expect(res.status).toBe(401);
  });

  it('is in /v1/openapi.json with the admin scope, as is the deny operation', async () => {
    const doc = (await (await h.api('/v1/openapi.json')).json()) as {
      paths: Record<string, Record<string, { 'x-nestclaw-scope': string }>>;
    };
    expect(doc.paths['/v1/channels'].get['x-nestclaw-scope']).toBe('admin');
    expect(doc.paths['/v1/pairing/deny'].post['x-nestclaw-scope']).toBe('admin');
  });
});
