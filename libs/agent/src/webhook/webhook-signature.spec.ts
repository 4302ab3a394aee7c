import { createHmac } from 'node:crypto';
import { signatureFor, signatureMatches, signedBytes } from './webhook-signature';

const secret = 'whsec-0123456789abcdef';
const body = Buffer.from('{"title":"登录失败"}', 'utf8');
const hex = createHmac('sha256', secret).update(body).digest('hex');

describe('signatureMatches', () => {
  it('accepts sha256=<hex> of the HMAC of the raw bytes, in either case of hex', () => {
    expect(signatureMatches(secret, signedBytes(body), `sha256=${hex}`)).toBe(true);
    expect(signatureMatches(secret, signedBytes(body), `sha256=${hex.toUpperCase()}`)).toBe(true);
    expect(signatureFor(secret, body)).toBe(`sha256=${hex}`);
  });

  it('refuses another secret, other bytes, and a missing or malformed header', () => {
    expect(signatureMatches('another-secret-entirely', signedBytes(body), `sha256=${hex}`)).toBe(false);
    expect(signatureMatches(secret, Buffer.concat([body, Buffer.from(' ')]), `sha256=${hex}`)).toBe(false);
    expect(signatureMatches(secret, signedBytes(body), undefined)).toBe(false);
    expect(signatureMatches(secret, signedBytes(body), hex)).toBe(false);
    expect(signatureMatches(secret, signedBytes(body), `sha1=${hex}`)).toBe(false);
    expect(signatureMatches(secret, signedBytes(body), `sha256=${hex.slice(2)}`)).toBe(false);
    expect(signatureMatches(secret, signedBytes(body), `sha256=${'z'.repeat(64)}`)).toBe(false);
  });
});

describe('a timestamped signature', () => {
  const ts = '1795000000';
  const stamped = createHmac('sha256', secret).update(`${ts}.`).update(body).digest('hex');

  it('covers "<timestamp>.<body>", so neither can change without the key', () => {
    expect(signatureFor(secret, body, ts)).toBe(`sha256=${stamped}`);
    expect(signatureMatches(secret, signedBytes(body, ts), `sha256=${stamped}`)).toBe(true);
    expect(signatureMatches(secret, signedBytes(body, '1795000001'), `sha256=${stamped}`)).toBe(false);
    // The body-only signature does not pass for a timestamped request, nor the other way round.
    expect(signatureMatches(secret, signedBytes(body, ts), `sha256=${hex}`)).toBe(false);
    expect(signatureMatches(secret, signedBytes(body), `sha256=${stamped}`)).toBe(false);
  });
});
