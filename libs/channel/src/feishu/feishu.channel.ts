import { Logger } from '@nestjs/common';
import { Client, Domain, EventDispatcher, LoggerLevel, WSClient } from '@larksuiteoapi/node-sdk';
import type { FeishuChannelConfig } from '@nestclaw/config';
import { ChannelAdapter, ChannelCapabilities, InboundMessage, InboundSink, OutboundMessage } from '../channel.port';
import { RetryPolicy, withRetry } from '../delivery/send-retry';
import { feishuCard } from './feishu-card';
import { FeishuCardActionEvent, feishuCardActionToInbound, feishuMessageToInbound, FeishuMessageEvent } from './feishu-inbound';

/** The platform waits 3 s for a callback's answer; a toast is shown only if our decision comes within this. */
const CALLBACK_ANSWER_MS = 2000;

/** An Open API answer that is not `code: 0` (HTTP 200 with a business error, or an HTTP error carrying one). */
export class FeishuApiError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly status?: number,
    readonly retryAfter?: number,
  ) {
    super(`Feishu API error ${code}${status ? ` (HTTP ${status})` : ''}: ${message}`);
  }
}

/** Feishu's "too many requests": HTTP 429 or business code 99991400, with x-ogw-ratelimit-reset seconds. */
const RATE_LIMITED = 99991400;

const retryPolicy: RetryPolicy = {
  retryAfter: (e) => (e instanceof FeishuApiError && (e.status === 429 || e.code === RATE_LIMITED) ? (e.retryAfter ?? 1) : undefined),
  transient: (e) => !(e instanceof FeishuApiError) || (e.status ?? 0) >= 500,
};

type AxiosLikeError = { response?: { status: number; data?: { code?: number; msg?: string }; headers?: Record<string, string> } };

/** axios errors (what the SDK's HTTP client throws) as FeishuApiError; network errors stay as they are (transient). */
async function call<T extends { code?: number; msg?: string }>(fn: () => Promise<T>): Promise<T> {
  let r: T;
  try {
    r = await fn();
  } catch (e) {
    const res = (e as AxiosLikeError).response;
    if (!res) throw e;
    const reset = Number(res.headers?.['x-ogw-ratelimit-reset']);
    throw new FeishuApiError(
      res.data?.code ?? res.status,
      res.data?.msg ?? `HTTP ${res.status}`,
      res.status,
      reset > 0 ? reset : undefined,
    );
  }
  if (r.code) throw new FeishuApiError(r.code, r.msg ?? 'error');
  return r;
}

/**
 * What the SDK logs, as messages only: it logs whole axios errors, whose request config holds the
 * message content and, for the token request, the app secret.
 */
const describe = (a: unknown): string => {
  if (typeof a === 'string') return a;
  if (Array.isArray(a)) return a.map(describe).join(' | ');
  if (a && typeof a === 'object') {
    const o = a as { message?: unknown; code?: unknown; msg?: unknown };
    if (typeof o.message === 'string') return o.message;
    if (o.code !== undefined) return `code ${String(o.code)}: ${String(o.msg ?? '')}`;
  }
  return String(a);
};

/** The SDK's logger onto Nest's. Its errors are warnings here: a failed call is reported (or retried) by our own code. */
const sdkLogger = (logger: Logger) => {
  const line = (args: unknown[]) => args.map(describe).join(' ');
  return {
    error: (...a: unknown[]) => logger.warn(line(a)),
    warn: (...a: unknown[]) => logger.warn(line(a)),
    info: (...a: unknown[]) => logger.log(line(a)),
    debug: (...a: unknown[]) => logger.debug(line(a)),
    trace: (...a: unknown[]) => logger.verbose(line(a)),
  };
};

/**
 * Feishu / Lark through `@larksuiteoapi/node-sdk`: events over the SDK's long connection (WSClient;
 * no public URL), sending and editing through the Open API client.
 *
 * Durability: the SDK awaits our event handler and only then sends the response frame that
 * acknowledges the event; an event not acknowledged (we crashed, the connection dropped) or answered
 * with an error (the handler threw: the store failed) is pushed again by the platform, with the
 * same event and message ids. So the handler resolves once the sink has stored the message — a
 * short insert, well inside the platform's 3 s — and the turn runs afterwards; the inbound dedupe
 * (message_id, or the callback's event_id) drops the redelivery of a message stored just before a crash.
 */
export class FeishuChannel implements ChannelAdapter {
  readonly id = 'feishu';
  readonly capabilities: ChannelCapabilities = {
    // A card's request body is capped at 30 KB; 4000 UTF-16 units of Chinese (3 bytes each in UTF-8) plus JSON escaping stays under it.
    maxMessageLength: 4000,
    format: 'feishu-markdown',
    edit: true,
    typing: false,
    buttons: true,
    // `uuid` on create: one message per uuid within an hour, however often it is sent.
    idempotentSend: true,
  };
  private readonly logger = new Logger('Feishu');
  private readonly client: Client;
  private readonly domain: string | Domain;
  private ws?: WSClient;
  private botOpenId?: string;
  private chain: Promise<void> = Promise.resolve();
  /** Card presses waiting for the decision's text, which becomes the callback's toast. */
  private readonly presses = new Map<string, (text?: string) => void>();
  private ready = false;

  constructor(private readonly config: FeishuChannelConfig) {
    if (!config.app_id) throw new Error('channels.feishu.app_id is not set');
    if (!config.app_secret) throw new Error('channels.feishu.app_secret is not set');
    this.domain = config.domain === 'feishu' ? Domain.Feishu : config.domain === 'lark' ? Domain.Lark : config.domain.replace(/\/$/, '');
    this.client = new Client({
      appId: config.app_id,
      appSecret: config.app_secret,
      domain: this.domain,
      loggerLevel: LoggerLevel.warn,
      logger: sdkLogger(this.logger),
    });
  }

  get connected(): boolean {
    return this.ready;
  }

  /** Opens the long connection (again after `stop`: the lease may come back to this replica). */
  async start(sink: InboundSink): Promise<void> {
    this.botOpenId ??= await this.botIdentity();
    const store = (m: InboundMessage): Promise<void> => {
      // In arrival order, as Discord's adapter does: the SDK runs each frame's handler concurrently.
      const stored = this.chain.then(() => sink(m));
      this.chain = stored.catch(() => undefined);
      return stored;
    };
    const dispatcher = new EventDispatcher({ loggerLevel: LoggerLevel.warn, logger: sdkLogger(this.logger) }).register({
      // A throw here makes the SDK answer the event with an error, so the platform pushes it again.
      'im.message.receive_v1': async (e: FeishuMessageEvent) => {
        await store(feishuMessageToInbound(e, this.botOpenId));
      },
      'card.action.trigger': async (e: FeishuCardActionEvent) => {
        const id = e.event_id ?? `${e.context?.open_message_id}:${Date.now()}`;
        const m = feishuCardActionToInbound(e, id);
        if (!m) return {};
        const answered = new Promise<string | undefined>((resolve) => {
          this.presses.set(id, resolve);
          setTimeout(() => resolve(undefined), CALLBACK_ANSWER_MS).unref();
        });
        await store(m);
        const text = await answered;
        this.presses.delete(id);
        return text ? { toast: { type: /not allowed|only the owner/i.test(text) ? 'error' : 'info', content: text } } : {};
      },
    });
    let onReady!: () => void;
    let onRefused!: (e: Error) => void;
    const readyOnce = new Promise<void>((resolve, reject) => ((onReady = resolve), (onRefused = reject)));
    this.ws = new WSClient({
      appId: this.config.app_id!,
      appSecret: this.config.app_secret!,
      domain: this.domain,
      loggerLevel: LoggerLevel.warn,
      logger: sdkLogger(this.logger),
      onReady: () => {
        this.ready = true;
        this.logger.log('long connection open');
        onReady();
      },
      onReconnecting: () => (this.ready = false),
      onReconnected: () => (this.ready = true),
      // Only when the SDK gives up: the endpoint refused the credentials (it retries anything transient).
      onError: (e: Error) => {
        this.ready = false;
        this.logger.error(`long connection failed: ${e.message}`);
        onRefused(e);
      },
    });
    await this.ws.start({ eventDispatcher: dispatcher });
    // Wait briefly so a healthy start logs in order and refused credentials fail the start (the channel
    // shows `failed`); never block boot on an unreachable platform (the SDK keeps retrying).
    readyOnce.catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([readyOnce, new Promise((r) => (timer = setTimeout(r, 3000)))]);
    } catch (e) {
      this.ws.close({ force: true });
      throw new Error(`Feishu refused the long connection: ${(e as Error).message}`);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The bot's own open_id, to tell a group message that @-mentions it (GET /open-apis/bot/v3/info). */
  private async botIdentity(): Promise<string | undefined> {
    try {
      const r = await call(() =>
        this.client.request<{ code?: number; msg?: string; bot?: { open_id?: string } }>({ url: '/open-apis/bot/v3/info', method: 'GET' }),
      );
      return r.bot?.open_id;
    } catch (e) {
      // Without it group mentions go unnoticed (DMs still work); the next start asks again.
      this.logger.warn(
        `could not read the bot's identity (${(e as Error).message}); group @-mentions are not recognised until the next start`,
      );
      return undefined;
    }
  }

  async stop(): Promise<void> {
    this.ready = false;
    this.ws?.close({ force: true });
    this.ws = undefined;
    for (const answer of this.presses.values()) answer();
    await this.chain;
  }

  async send(out: OutboundMessage): Promise<{ platformMessageId: string }> {
    const uuid = out.nonce ? `nc-${out.nonce}`.slice(0, 50) : undefined;
    const create = (msgType: 'interactive' | 'text', content: string) =>
      withRetry(
        () =>
          call(() =>
            this.client.im.v1.message.create({
              params: { receive_id_type: 'chat_id' },
              data: { receive_id: out.chatId, msg_type: msgType, content, ...(uuid ? { uuid } : {}) },
            }),
          ),
        retryPolicy,
      );
    let sent;
    try {
      sent = await create('interactive', feishuCard(out.text, out.buttons));
    } catch (e) {
      // A card the platform refuses (its markdown, its size) must not lose the reply: send plain text instead.
      if (!(e instanceof FeishuApiError) || (e.status ?? 400) >= 500 || out.plain === undefined || out.buttons) throw e;
      this.logger.warn(`card refused (${e.message}); sending plain text`);
      sent = await create('text', JSON.stringify({ text: out.plain }));
    }
    const id = sent.data?.message_id;
    if (!id) throw new Error('Feishu accepted the message but returned no message_id');
    return { platformMessageId: id };
  }

  /** Replaces the card's content (and drops its buttons: an approval card edited into its decision). */
  async edit(_chatId: string, platformMessageId: string, text: string): Promise<void> {
    await withRetry(
      () => call(() => this.client.im.v1.message.patch({ path: { message_id: platformMessageId }, data: { content: feishuCard(text) } })),
      retryPolicy,
    );
  }

  async answerCallback(callbackId: string, text?: string): Promise<void> {
    this.presses.get(callbackId)?.(text);
  }
}
