import { telegramHtmlToText } from '@nestclaw/channel';
import type { DiscordUser, FakeDiscordServer } from '../fixtures/fake-discord.server';
import type { FakeTelegramServer, FakeUser } from '../fixtures/fake-telegram.server';
import type { HaCluster } from './ha-cluster';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A seeded PRNG (mulberry32): a failing chaos run is replayed with its seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The value at fraction q of an ascending list. */
export function percentile(sorted: number[], q: number): number | undefined {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))];
}

/**
 * An HTTP client moves to its next session every REQUESTS_PER_SESSION requests: transcripts stay
 * short of compaction (history_limit), whose summarising calls would blur what the model was asked.
 */
const SESSIONS_PER_CLIENT = 12;
const REQUESTS_PER_SESSION = 60;

export interface HttpChat {
  sessionId: string;
  message: string;
  /** The reply the client received (a 200), if it did. */
  received?: string;
  /** No 200 reached the client, but the session's stored answer was found before asking again. */
  foundStored?: boolean;
  attempts: number;
  /** Why each failed attempt failed (the balancer's 502 when the replica died mid-request, …). */
  failures: string[];
}

/**
 * The steady load of the HA chaos test: Telegram DMs and Discord DMs from several senders at a fixed
 * pace (independent of which replica lives), and HTTP clients chatting through the balancer. An HTTP
 * request whose replica died is retried the way the API allows: each request has its own session
 * (its idempotency key); before asking again, the client reads the session's transcript, since the
 * replica may have stored the answer before it died.
 */
export class ChatLoad {
  readonly telegram: { user: FakeUser; text: string }[] = [];
  readonly discord: { user: DiscordUser; text: string }[] = [];
  readonly http: HttpChat[] = [];
  /** Discord messages sent while no gateway connection was open: only the channel history has them. */
  discordOffline = 0;
  /** Each HTTP client's sessions, opened before the kills. */
  readonly sessions: string[][] = [];
  private running = false;
  private loops: Promise<void>[] = [];

  constructor(
    private readonly tg: FakeTelegramServer,
    private readonly dc: FakeDiscordServer,
    private readonly ha: HaCluster,
    private readonly tgUsers: FakeUser[],
    private readonly dcUsers: DiscordUser[],
  ) {}

  /**
   * One message from every sender, answered: each chat is known before the kills start. Each HTTP
   * client opens its sessions (the API names a new session; a client cannot choose the id, so a
   * session opened by a request whose replica died could not be found again).
   */
  async warmUp(httpClients: number): Promise<void> {
    await this.dc.waitFor(() => this.dc.connected, 20_000, 'a Discord connection');
    for (let c = 0; c < httpClients; c++) {
      const own: string[] = [];
      for (let n = 0; n < SESSIONS_PER_CLIENT; n++) {
        const res = await this.ha.api('/v1/chat', { json: { message: `hello ${n} from client ${c}` } });
        if (res.status !== 200) throw new Error(`client ${c} could not open a session: ${res.status} ${await res.text()}`);
        own.push(((await res.json()) as { sessionId: string }).sessionId);
      }
      this.sessions.push(own);
    }
    for (const user of this.tgUsers) this.sendTelegram(user, `hello from ${user.first_name}`);
    for (const user of this.dcUsers) this.sendDiscord(user, `hello from ${user.username}`);
    await this.drained(60_000);
  }

  start(intervalMs: number): void {
    this.running = true;
    let n = 0;
    this.loops = [
      (async () => {
        while (this.running) {
          const tgUser = this.tgUsers[n % this.tgUsers.length];
          const dcUser = this.dcUsers[n % this.dcUsers.length];
          this.sendTelegram(tgUser, `t${n} from ${tgUser.first_name}`);
          this.sendDiscord(dcUser, `d${n} from ${dcUser.username}`);
          n++;
          await sleep(intervalMs);
        }
      })(),
      ...this.sessions.map((own, c) =>
        (async () => {
          for (let i = 0; this.running; i++) {
            await this.chat(own[Math.floor(i / REQUESTS_PER_SESSION) % own.length], `h${i} from client ${c}`);
            await sleep(intervalMs);
          }
        })(),
      ),
    ];
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  /** Resolves when every channel message has a complete answer (HTTP chats end before stop() returns). */
  async drained(timeoutMs: number): Promise<void> {
    await this.tg
      .waitFor(
        () =>
          this.telegram.every(({ user, text }) => this.tg.sentTo(user.id).some((m) => telegramHtmlToText(m.current) === `echo: ${text}`)) &&
          this.discord.every(({ user, text }) => this.dc.postedTo(this.dc.dmChannelOf(user)).some((m) => m.current === `echo: ${text}`)),
        timeoutMs,
        'every channel message answered',
      )
      .catch((e: Error) => {
        const missing = [
          ...this.telegram.filter(
            ({ user, text }) => !this.tg.sentTo(user.id).some((m) => telegramHtmlToText(m.current) === `echo: ${text}`),
          ),
          ...this.discord.filter(
            ({ user, text }) => !this.dc.postedTo(this.dc.dmChannelOf(user)).some((m) => m.current === `echo: ${text}`),
          ),
        ].map((m) => m.text);
        throw new Error(`${e.message}: unanswered ${JSON.stringify(missing)}`);
      });
  }

  private sendTelegram(user: FakeUser, text: string): void {
    this.telegram.push({ user, text });
    this.tg.dm(user, text);
  }

  /** Dispatched to the open gateway connection; with none open (a failover), it only lands in the channel history, as on Discord. */
  private sendDiscord(user: DiscordUser, text: string): void {
    this.discord.push({ user, text });
    if (this.dc.connected) {
      try {
        this.dc.dm(user, text);
        return;
      } catch {
        // the connection closed between the check and the send
      }
    }
    this.discordOffline++;
    this.dc.dmOffline(user, text);
  }

  /** Asks until the client holds the answer: received (200), or found stored after its replica died. */
  private async chat(sessionId: string, message: string): Promise<void> {
    const chat: HttpChat = { sessionId, message, attempts: 0, failures: [] };
    this.http.push(chat);
    for (;;) {
      chat.attempts++;
      // A fetch error comes from another realm under jest's VM modules: told apart by shape, not instanceof.
      const { res, error } = await this.ha.api('/v1/chat', { json: { sessionId, message } }).then(
        (r) => ({ res: r, error: undefined }),
        (e: Error & { cause?: unknown }) => ({ res: undefined, error: String(e.cause ?? e.message) }),
      );
      if (res?.status === 200) {
        chat.received = ((await res.json()) as { reply: string }).reply;
        return;
      }
      chat.failures.push(res ? `${res.status} ${await res.text()}` : error!);
      if (chat.attempts >= 30) return;
      await sleep(300);
      if (await this.storedAnswer(sessionId, message)) {
        chat.foundStored = true;
        return;
      }
    }
  }

  /** Whether the session holds an answer to `message` (read through the balancer, retried while replicas die). */
  private async storedAnswer(sessionId: string, message: string): Promise<boolean> {
    for (;;) {
      const res = await this.ha.api(`/v1/sessions/${sessionId}/messages?limit=1000`).catch(() => undefined);
      if (res?.status === 200) {
        const { messages } = (await res.json()) as { messages: { role: string; status: string; turnId: string; content: string }[] };
        const turns = new Set(messages.filter((m) => m.role === 'user' && m.content === message).map((m) => m.turnId));
        return messages.some((m) => m.role === 'assistant' && m.status === 'ok' && turns.has(m.turnId));
      }
      await res?.body?.cancel();
      await sleep(300);
    }
  }
}
