import { createHmac } from 'node:crypto';
import { signatureFor, signatureMatches } from './webhook-signature';

const secret = 'whsec-0123456789abcdef';
const body = Buffer.from('{"title":"登录失败"}', 'utf8');
const hex = createHmac('sha256', secret).update(body).digest('hex');

describe('signatureMatches', () => {
  it('accepts sha256=<hex> of the HMAC of the raw bytes, in either case of hex', () => {
    expect(signatureMatches(secret, body, `sha256=${hex}`)).toBe(true);
    expect(signatureMatches(secret, body, `sha256=${hex.toUpperCase()}`)).toBe(true);
    expect(signatureFor(secret, body)).toBe(`sha256=${hex}`);
  });

  it('refuses another secret, other bytes, and a missing or malformed header', () => {
    expect(signatureMatches('another-secret-entirely', body, `sha256=${hex}`)).toBe(false);
    expect(signatureMatches(secret, Buffer.concat([body, Buffer.from(' ')]), `sha256=${hex}`)).toBe(false);
    expect(signatureMatches(secret, body, undefined)).toBe(false);
    expect(signatureMatches(secret, body, hex)).toBe(false);
    expect(signatureMatches(secret, body, `sha1=${hex}`)).toBe(false);
    expect(signatureMatches(secret, body, `sha256=${hex.slice(2)}`)).toBe(false);
    expect(signatureMatches(secret, body, `sha256=${'z'.repeat(64)}`)).toBe(false);
  });
});
