import { createHmac, timingSafeEqual } from 'node:crypto';

const SIGNATURE = /^sha256=([0-9a-fA-F]{64})$/;

/**
 * What is signed: the raw body, or `<timestamp>.<body>` for a hook with `timestamp_tolerance_s`
 * (Stripe's and Slack's scheme), so the time a request was made cannot be changed without the key.
 */
export function signedBytes(body: Buffer | string, timestamp?: string): Buffer {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
  return timestamp === undefined ? bytes : Buffer.concat([Buffer.from(`${timestamp}.`, 'ascii'), bytes]);
}

/**
 * Whether `header` is `sha256=<hex>` of HMAC-SHA256(secret, signed bytes), over the raw bytes as they
 * arrived (GitHub's X-Hub-Signature-256 is the same scheme). The digests are compared in constant
 * time, so how much of a guess was right cannot be timed; a missing or malformed header is false.
 */
export function signatureMatches(secret: string, signed: Buffer, header: string | undefined): boolean {
  const m = header === undefined ? null : SIGNATURE.exec(header.trim());
  if (!m) return false;
  const expected = createHmac('sha256', secret).update(signed).digest();
  return timingSafeEqual(expected, Buffer.from(m[1], 'hex'));
}

/** The header value a sender puts on `body` (docs, tests and `nestclaw`-side senders); `timestamp` for a timestamped hook. */
export function signatureFor(secret: string, body: Buffer | string, timestamp?: string): string {
  return `sha256=${createHmac('sha256', secret).update(signedBytes(body, timestamp)).digest('hex')}`;
}
