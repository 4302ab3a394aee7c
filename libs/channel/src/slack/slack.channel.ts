import { Logger } from '@nestjs/common';
import { LogLevel, SocketModeReceiver, webApi } from '@slack/bolt';
import type { SlackChannelConfig } from '@nestclaw/config';
import type { ChannelAdapter, ChannelCapabilities, InboundMessage, InboundSink, OutboundMessage } from '../channel.port';
import { RetryPolicy, withRetry } from '../delivery/send-retry';
import { slackActionToInbound, slackEventToInbound, SlackPayload } from './slack-inbound';

/** What @slack/socket-mode hands each listener of `slack_event`. */
interface SocketEnvelope {
  ack: (response?: Record<string, unknown>) => Promise<void>;
  envelope_id?: string;
  type: string;
  body?: SlackPayload;
  retry_num?: number;
}

const retryPolicy: RetryPolicy = {
  retryAfter: (e) => (e instanceof webApi.WebAPIRateLimitedError ? e.retryAfter : undefined),
  transient: (e) =>
    e instanceof webApi.WebAPIRequestError ||
    (e instanceof webApi.WebAPIHTTPError && e.statusCode >= 500) ||
    (e instanceof webApi.WebAPIPlatformError && ['internal_error', 'fatal_error', 'service_unavailable'].includes(e.data.error)),
};

/** Presses are answered (an ephemeral reply) within minutes or not at all; older ones are dropped from the map. */
const ACTION_TTL_MS = 15 * 60_000;

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });

/**
 * Slack in Socket Mode: @slack/socket-mode's client (built by bolt's SocketModeReceiver, whose
 * own handler is idle without an App) and @slack/web-api's WebClient, not a bolt `App`: the App
 * acknowledges every Events API envelope before any listener runs, so a kill between that ack
 * and our insert would lose the message. Here each envelope is acknowledged only after the sink
 * stored it; an envelope not acknowledged is redelivered by Slack (retry_attempt), and the
 * inbound dedupe (`<channel>:<ts>`) absorbs the repeat.
 *
 * Messages are cut at 3,000 characters: the most a Block Kit section holds (approval cards carry
 * their text in one, beside the buttons), and under the 4,000 Slack advises for `text`.
 */
export class SlackChannel implements ChannelAdapter {
  readonly id = 'slack';
  readonly capabilities: ChannelCapabilities = {
    maxMessageLength: 3000,
    format: 'slack-mrkdwn',
    edit: true,
    typing: false,
    buttons: true,
    idempotentSend: false,
  };
  private readonly logger = new Logger('Slack');
  private readonly web: webApi.WebClient;
  private readonly socket: SocketModeReceiver['client'];
  private sink?: InboundSink;
  private chain: Promise<void> = Promise.resolve();
  private abort?: AbortController;
  private connecting?: Promise<void>;
  private ready = false;
  private botUserId?: string;
  /** Button presses by trigger id: where an answer to the presser goes. */
  private readonly actions = new Map<string, { channel: string; user: string; threadTs?: string; at: number }>();

  constructor(private readonly config: SlackChannelConfig) {
    if (!config.bot_token) throw new Error('channels.slack.bot_token is not set');
    if (!config.app_token) throw new Error('channels.slack.app_token is not set');
    if (!config.bot_token.startsWith('xoxb-')) throw new Error('channels.slack.bot_token must be a bot token (xoxb-…)');
    if (!config.app_token.startsWith('xapp-')) throw new Error('channels.slack.app_token must be an app-level token (xapp-…)');
    const slackApiUrl = config.api_root ? `${config.api_root.replace(/\/$/, '')}/` : undefined;
    const logger = slackLogger(this.logger);
    // Retries are ours (send-retry), so a 429's retry_after is honoured once and counted, not hidden in the client.
    this.web = new webApi.WebClient(config.bot_token, {
      ...(slackApiUrl ? { slackApiUrl } : {}),
      logger,
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
    });
    const receiver = new SocketModeReceiver({
      appToken: config.app_token,
      logger,
      // apps.connections.open: a few quick tries per connect; the loop in `connect` goes on after that.
      installerOptions: { clientOptions: { ...(slackApiUrl ? { slackApiUrl } : {}), retryConfig: { retries: 2, minTimeout: 200 } } },
    });
    this.socket = receiver.client;
    this.socket.on('slack_event', (e: SocketEnvelope) => this.receive(e));
    this.socket.on('connected', () => (this.ready = true));
    for (const state of ['reconnecting', 'disconnecting', 'disconnected']) this.socket.on(state, () => (this.ready = false));
  }

  get connected(): boolean {
    return this.ready;
  }

  /** Returns once connected, or after 3 s while Slack is unreachable (connecting goes on in the background). Can start again after `stop`. */
  async start(sink: InboundSink): Promise<void> {
    this.sink = sink;
    this.abort = new AbortController();
    this.connecting = this.connect(this.abort.signal);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.connecting, new Promise((r) => (timer = setTimeout(r, 3000)))]);
    clearTimeout(timer);
  }

  private async connect(signal: AbortSignal): Promise<void> {
    for (let attempt = 1; !signal.aborted; attempt++) {
      try {
        if (!this.botUserId) {
          const me = await this.web.auth.test();
          this.botUserId = me.user_id;
        }
        await this.socket.start();
        if (signal.aborted) return;
        this.logger.log(`connected in Socket Mode as ${this.botUserId ?? '?'}`);
        return;
      } catch (e) {
        if (signal.aborted) return;
        // A start ended by a disconnect rejects with nothing.
        const why = e instanceof Error ? e.message : 'connection closed before hello';
        const wait = Math.min(60_000, 500 * 2 ** attempt);
        this.logger.warn(`could not connect (${why}); retrying in ${wait} ms`);
        await sleep(wait, signal);
      }
    }
  }

  async stop(): Promise<void> {
    this.abort?.abort();
    this.ready = false;
    // A start still waiting for its hello ends with the disconnect; the second one closes what it may have opened meanwhile.
    await this.socket.disconnect();
    await this.connecting;
    await this.socket.disconnect();
    await this.chain;
  }

  /** Stores each envelope's message in arrival order, then acknowledges it; a failed store leaves it for Slack to redeliver. */
  private receive(e: SocketEnvelope): void {
    if (!e.envelope_id) return;
    const message = this.toInbound(e);
    this.chain = this.chain
      .then(async () => {
        if (message) await this.sink!(message);
        await e.ack();
      })
      .catch((err: unknown) =>
        this.logger.error(`envelope ${e.envelope_id} not acknowledged (Slack redelivers it): ${(err as Error).message}`),
      );
  }

  toInbound(e: Pick<SocketEnvelope, 'type' | 'body'>): InboundMessage | undefined {
    if (!e.body) return undefined;
    if (e.type === 'events_api') return slackEventToInbound(e.body, this.botUserId);
    if (e.type !== 'interactive') return undefined;
    const m = slackActionToInbound(e.body);
    if (m?.callback) {
      const now = Date.now();
      for (const [id, v] of this.actions) if (now - v.at > ACTION_TTL_MS) this.actions.delete(id);
      this.actions.set(m.callback.id, { channel: m.chat.id, user: m.sender.id, threadTs: m.threadId, at: now });
    }
    return m;
  }

  async send(out: OutboundMessage): Promise<{ platformMessageId: string }> {
    const blocks = out.buttons && [
      { type: 'section', text: { type: 'mrkdwn', text: out.text } },
      ...out.buttons.map((row, r) => ({
        type: 'actions',
        elements: row.map((b, i) => ({
          type: 'button',
          action_id: `nc_${r}_${i}`,
          text: { type: 'plain_text', text: b.text },
          value: b.data,
          style: i === 0 ? 'primary' : 'danger',
        })),
      })),
    ];
    const sent = await withRetry(
      () =>
        this.web.chat.postMessage({
          channel: out.chatId,
          text: out.text,
          ...(out.threadId ? { thread_ts: out.threadId } : {}),
          ...(blocks ? { blocks } : {}),
          unfurl_links: false,
          unfurl_media: false,
        }),
      retryPolicy,
    );
    if (!sent.ts) throw new Error('chat.postMessage answered without a ts');
    return { platformMessageId: sent.ts };
  }

  /** Replaces the text; an empty `blocks` removes an approval card's buttons once it is decided. */
  async edit(chatId: string, platformMessageId: string, text: string): Promise<void> {
    await withRetry(() => this.web.chat.update({ channel: chatId, ts: platformMessageId, text, blocks: [] }), retryPolicy);
  }

  /** Slack has no answer to a press but the envelope ack; a refusal is shown to the presser alone. */
  async answerCallback(callbackId: string, text?: string): Promise<void> {
    const action = this.actions.get(callbackId);
    this.actions.delete(callbackId);
    if (!action || !text) return;
    await this.web.chat.postEphemeral({
      channel: action.channel,
      user: action.user,
      text,
      ...(action.threadTs ? { thread_ts: action.threadTs } : {}),
    });
  }
}

/** @slack/logger's interface over Nest's logger: the SDKs' chatter at debug, their warnings and errors as such. */
function slackLogger(logger: Logger) {
  const line = (msg: unknown[]) => msg.map(String).join(' ');
  return {
    debug: (...msg: unknown[]) => logger.debug(line(msg)),
    info: (...msg: unknown[]) => logger.debug(line(msg)),
    warn: (...msg: unknown[]) => logger.warn(line(msg)),
    error: (...msg: unknown[]) => logger.error(line(msg)),
    setLevel: () => undefined,
    getLevel: () => LogLevel.INFO,
    setName: () => undefined,
  };
}
