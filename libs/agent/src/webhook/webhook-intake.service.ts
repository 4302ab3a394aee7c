import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { NestclawError } from '@nestclaw/common';
import { ConfigService, WebhookConfig } from '@nestclaw/config';
import type { DeliveryTarget } from '../scheduler/job-output.port';
import { SchedulerClock } from '../scheduler/scheduler.clock';
import { MAX_PAYLOAD_DEPTH, nestedDeeperThan, webhookMessage } from './webhook-message';
import { signatureMatches, signedBytes } from './webhook-signature';
import { parseTimestamp, timestampFresh } from './webhook-timestamp';
import { WebhookRepository } from './webhook.repository';
import { WebhookTurnRunner } from './webhook-turn.runner';

/** A request to `POST /api/webhook/:id` as it arrived: the body's raw bytes, unparsed. */
export interface WebhookRequest {
  hookId: string;
  body: Buffer;
  headers: Record<string, string | string[] | undefined>;
}

const DELIVERY_ID = /^[\x21-\x7e]{1,200}$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * An inbound webhook, checked in an order where nothing untrusted is looked at before it has to be:
 * the hook exists → the body is within its cap → the signature over the raw bytes (and, for a hook
 * with `timestamp_tolerance_s`, the signed timestamp) matches, before any parsing → that timestamp is
 * recent → it names a delivery id → it is JSON, at most 32 levels deep → that id (and a timestamped
 * hook's signature) is new, recorded durably. Only then does a turn start, in the background; every
 * refusal is a coded error and never reaches the model.
 */
@Injectable()
export class WebhookIntake {
  constructor(
    private readonly config: ConfigService,
    private readonly deliveries: WebhookRepository,
    private readonly turns: WebhookTurnRunner,
    private readonly clock: SchedulerClock,
  ) {}

  async receive(req: WebhookRequest): Promise<{ turnId: string; sessionId: string }> {
    const webhooks = this.config.get().webhooks;
    const hook = Object.hasOwn(webhooks, req.hookId) ? webhooks[req.hookId] : undefined;
    if (!hook) throw new NestclawError('not_found', `No webhook "${req.hookId}" is configured`);
    if (req.body.length > hook.max_body)
      throw new NestclawError('payload_too_large', `The body is larger than this webhook's max_body (${hook.max_body} bytes)`);
    const tolerance = hook.timestamp_tolerance_s;
    const timestampHeader = tolerance === undefined ? undefined : header(req, hook.timestamp_header);
    const timestamp = parseTimestamp(timestampHeader);
    if (tolerance !== undefined && timestamp === undefined)
      throw new NestclawError(
        'webhook_signature_invalid',
        `Missing or malformed timestamp: send ${hook.timestamp_header}: <Unix time in seconds> and sign "<timestamp>.<body>"`,
      );
    const signature = header(req, hook.signature_header);
    if (!signatureMatches(hook.secret, signedBytes(req.body, timestampHeader), signature))
      throw new NestclawError(
        'webhook_signature_invalid',
        `Missing or wrong signature: send ${hook.signature_header}: sha256=<hex HMAC-SHA256 of ${tolerance === undefined ? 'the raw body' : '"<timestamp>.<raw body>"'} with the hook's secret>`,
      );
    const now = this.clock.now();
    if (tolerance !== undefined && !timestampFresh(timestamp!, now, tolerance))
      throw new NestclawError(
        'webhook_timestamp_expired',
        `The signed timestamp ${timestamp} is more than ${tolerance} s from the gateway's clock (${Math.floor(now.getTime() / 1000)}): sign each request when sending it`,
      );
    const deliveryId = header(req, hook.delivery_header);
    if (!deliveryId || !DELIVERY_ID.test(deliveryId))
      throw new NestclawError('invalid_request', `Send a unique delivery id (1-200 printable ASCII characters) in ${hook.delivery_header}`);
    const payload = parseJson(req.body);
    const turnId = randomUUID();
    const sessionId = sessionOf(req.hookId, hook);
    const deliverTo = targetOf(hook);
    const accepted = await this.deliveries.accept({
      hookId: req.hookId,
      deliveryId,
      agentId: hook.agent,
      sessionId,
      turnId,
      deliverTo,
      // A timestamped request is unique by its signature too: the same capture under a new delivery id is a replay.
      signature: tolerance === undefined ? undefined : signature!.trim().toLowerCase(),
      now,
    });
    if (!accepted) throw new NestclawError('webhook_replayed', `Delivery "${deliveryId}" of webhook "${req.hookId}" was already accepted`);
    this.turns.start({
      hookId: req.hookId,
      runId: accepted.runId,
      agentId: hook.agent,
      sessionId,
      turnId,
      message: webhookMessage(hook.template, req.hookId, payload),
      deliverTo,
    });
    return { turnId, sessionId };
  }
}

function header(req: WebhookRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? undefined : v; // a repeated signature or id header is ambiguous: treated as missing
}

function parseJson(body: Buffer): unknown {
  let payload: unknown;
  try {
    payload = JSON.parse(utf8.decode(body)) as unknown;
  } catch (e) {
    throw new NestclawError('invalid_request', `The body is not valid UTF-8 JSON: ${(e as Error).message}`);
  }
  // Checked before the delivery is recorded: rendering it into the message must not fail afterwards.
  if (nestedDeeperThan(payload, MAX_PAYLOAD_DEPTH))
    throw new NestclawError('invalid_request', `The payload is nested deeper than ${MAX_PAYLOAD_DEPTH} levels`);
  return payload;
}

function sessionOf(hookId: string, hook: WebhookConfig): string {
  return typeof hook.deliver_to === 'object' && 'session' in hook.deliver_to ? hook.deliver_to.session : `webhook:${hookId}`;
}

function targetOf(hook: WebhookConfig): DeliveryTarget | undefined {
  const to = hook.deliver_to;
  if (typeof to !== 'object' || !('channel' in to)) return undefined;
  return { channel: to.channel, chatId: to.chat_id, ...(to.thread_id ? { threadId: to.thread_id } : {}) };
}
