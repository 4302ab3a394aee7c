import { z } from 'zod';
import { secret } from './field-types';

/** Same characters a session id may hold, so `webhook:<id>` is always a valid session id. */
export const WEBHOOK_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** Where the payload goes in `template`. */
export const PAYLOAD_PLACEHOLDER = '{{payload}}';

const headerName = z
  .string()
  .regex(/^[A-Za-z0-9-]{1,100}$/, 'must be an HTTP header name (letters, digits, "-")')
  .transform((h) => h.toLowerCase());

/**
 * Where a hook's answer goes: a channel chat (through the same exactly-once delivery as scheduled
 * jobs' answers), a named session (the turn runs there; the answer stays in its transcript), or
 * nowhere (`none`: the turn runs in the hook's own session `webhook:<id>`).
 */
const deliverTo = z.union([
  z.strictObject({
    channel: z.string().min(1),
    chat_id: z.union([z.string().min(1), z.number()]).transform(String),
    thread_id: z.string().optional(),
  }),
  z.strictObject({ session: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9:._@-]{0,199}$/, 'must be a session id') }),
  z.literal('none'),
]);

/** One inbound webhook (issue 27): `POST /api/webhook/<id>`, authenticated by an HMAC-SHA256 signature of the raw body. */
const webhookSchema = z.strictObject({
  /**
   * The signing secret. Reference an environment variable (`secret: ${MY_HOOK_SECRET}`) rather than
   * writing it here; it is redacted in logs, /doctor and config dumps like every other secret.
   */
  secret: secret(
    z.string().min(16, 'must be at least 16 characters; reference an environment variable (secret: ${MY_HOOK_SECRET}) and set it'),
  ),
  /** The header holding `sha256=<hex>` (GitHub: X-Hub-Signature-256, which uses the same scheme). */
  signature_header: headerName.default('x-nestclaw-signature'),
  /** The header holding the sender's unique delivery id; a second request with the same id is refused (replay). GitHub: X-GitHub-Delivery. */
  delivery_header: headerName.default('x-nestclaw-delivery'),
  /**
   * When set, the sender also sends the Unix time in seconds in `timestamp_header` and signs
   * `<timestamp>.<body>` instead of the body alone (Stripe's and Slack's scheme): a request whose time
   * is further than this from the gateway's clock is refused, and one already accepted cannot be sent
   * again under a new delivery id. Unset (the default): the body alone is signed, as GitHub does.
   */
  timestamp_tolerance_s: z.number().int().min(1).max(86_400).optional(),
  timestamp_header: headerName.default('x-nestclaw-timestamp'),
  agent: z.string().min(1).default('default'),
  /** The message the agent gets; `{{payload}}` is replaced by the JSON body, fenced and marked as untrusted. */
  template: z
    .string()
    .min(1)
    .refine((t) => t.includes(PAYLOAD_PLACEHOLDER), `must contain ${PAYLOAD_PLACEHOLDER}`)
    .default(`A webhook delivered this payload:\n\n${PAYLOAD_PLACEHOLDER}`),
  /** Largest body accepted, in bytes (refused with 413 before the signature is checked). Capped by server.body_limit. */
  max_body: z
    .number()
    .int()
    .min(1)
    .default(64 * 1024),
  deliver_to: deliverTo.default('none'),
});
export type WebhookConfig = z.output<typeof webhookSchema>;

export const webhooksSchema = z
  .record(z.string().regex(WEBHOOK_ID_PATTERN, 'a webhook id is 1-64 letters, digits, ".", "_" or "-"'), webhookSchema)
  .default({});
