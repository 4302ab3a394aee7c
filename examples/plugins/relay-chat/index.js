'use strict';
// A sample trusted plugin adding a chat channel (docs/plugins.md, "Channels"). The relay service it
// talks to is made up and small on purpose — long polling like Telegram's getUpdates, sends with an
// idempotency key like Discord's nonce — so the sample shows what an adapter owes nestclaw: hand each
// message to the sink and acknowledge it only once the sink resolved (stored), send and edit with
// retries, report `connected`, stop promptly. Node's own fetch only: a plugin folder carries no node_modules.

const POLL_SECONDS = 20;

class RelayChannel {
  constructor(config, logger) {
    this.id = 'relay';
    this.capabilities = {
      maxMessageLength: config.maxMessageLength ?? 2000,
      format: 'plain',
      edit: true,
      typing: false,
      buttons: false,
      idempotentSend: true,
    };
    this.url = config.url.replace(/\/$/, '');
    this.token = config.token;
    this.logger = logger;
    this.connected = false;
  }

  /** Polls in the background; resolves once the relay answered the first poll (or failed it: then it keeps trying). */
  async start(sink) {
    this.abort = new AbortController();
    let first;
    const firstPoll = new Promise((resolve) => (first = resolve));
    this.loop = this.poll(sink, this.abort.signal, first);
    await firstPoll;
  }

  async poll(sink, signal, first) {
    // The relay keeps every update until a poll asks from past it: an update is acknowledged by the
    // next request's offset, which is sent only after the sink stored it. A kill before that makes the
    // relay deliver it again, and nestclaw's inbound dedupe drops the repeat.
    let offset = 0;
    let failures = 0;
    while (!signal.aborted) {
      try {
        const updates = await this.call('GET', `/updates?offset=${offset}&timeout=${offset === 0 && !this.connected ? 0 : POLL_SECONDS}`, undefined, signal);
        this.connected = true;
        failures = 0;
        first();
        for (const u of updates) {
          await sink(toInbound(u));
          offset = u.id + 1;
        }
      } catch (e) {
        if (signal.aborted) break;
        this.connected = false;
        first();
        if (failures++ === 0) this.logger.warn(`relay poll failed: ${e.message}; retrying`);
        await sleep(Math.min(500 * 2 ** failures, 10_000), signal);
      }
    }
    this.connected = false;
  }

  async send(message) {
    const sent = await this.withRetry(() =>
      this.call('POST', '/send', { chat: message.chatId, text: message.text, nonce: message.nonce, replyTo: message.replyToId }),
    );
    return { platformMessageId: String(sent.id) };
  }

  async edit(chatId, platformMessageId, text) {
    await this.withRetry(() => this.call('POST', '/edit', { chat: chatId, id: Number(platformMessageId), text }));
  }

  async stop() {
    this.abort?.abort();
    await this.loop;
  }

  /** A 429 is waited out (its retry_after), a 5xx or a network error retried twice; anything else is the caller's. */
  async withRetry(fn) {
    for (let attempt = 0; ; attempt++) {
      try {
        return await fn();
      } catch (e) {
        const transient = e.status === 429 || e.status >= 500 || e.status === undefined;
        if (!transient || attempt >= 2) throw e;
        await sleep(e.retryAfterMs ?? 300 * (attempt + 1));
      }
    }
  }

  async call(method, path, body, signal) {
    const res = await fetch(`${this.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${this.token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      signal: signal ?? AbortSignal.timeout(15_000),
    });
    const answer = await res.json().catch(() => ({}));
    if (!res.ok) {
      const error = new Error(`relay ${method} ${path.split('?')[0]} answered ${res.status}: ${answer.error ?? ''}`);
      error.status = res.status;
      if (res.status === 429) error.retryAfterMs = (Number(answer.retry_after) || 1) * 1000;
      throw error;
    }
    return answer.result;
  }
}

function toInbound(u) {
  const m = u.message;
  return {
    channel: 'relay',
    platformMessageId: String(m.id),
    chat: { id: String(m.chat), type: 'dm' },
    sender: { id: String(m.from), name: m.name },
    mentioned: true,
    text: typeof m.text === 'string' ? m.text : '',
    media: [],
    raw: { update_id: u.id, message_id: m.id },
    timestamp: new Date((m.date ?? Date.now() / 1000) * 1000).toISOString(),
  };
}

function sleep(ms, signal) {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });
}

exports.register = (api) => {
  api.registerChannel(new RelayChannel(api.config, api.logger));
  api.logger.log(`relay channel set up for ${new URL(api.config.url).origin}`);
};
