import { createHmac, timingSafeEqual } from 'node:crypto';

const SIGNATURE = /^sha256=([0-9a-fA-F]{64})$/;

/**
 * Whether `header` is `sha256=<hex>` of HMAC-SHA256(secret, body), over the raw bytes as they
 * arrived (GitHub's X-Hub-Signature-256 is the same scheme). The digests are compared in constant
 * time, so how much of a guess was right cannot be timed; a missing or malformed header is false.
 */
export function signatureMatches(secret: string, body: Buffer, header: string | undefined): boolean {
  const m = header === undefined ? null : SIGNATURE.exec(header.trim());
  if (!m) return false;
  const expected = createHmac('sha256', secret).update(body).digest();
  return timingSafeEqual(expected, Buffer.from(m[1], 'hex'));
}

/** The header value a sender puts on `body` (docs, tests and `nestclaw`-side senders). */
export function signatureFor(secret: string, body: Buffer | string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}
