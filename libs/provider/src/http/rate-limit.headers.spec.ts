import { parseRateLimitHeaders, parseReset } from './rate-limit.headers';
import { parseRetryAfter } from '../provider.errors';

describe('rate-limit headers', () => {
  it('parses Go-style durations, bare seconds and RFC 3339 times as milliseconds from now', () => {
    expect(parseReset('1s')).toBe(1000);
    expect(parseReset('6m0s')).toBe(360_000);
    expect(parseReset('20ms')).toBe(20);
    expect(parseReset('1h2m3.5s')).toBe(3_723_500);
    expect(parseReset('2.5')).toBe(2500);
    expect(parseReset('2026-01-01T00:00:10Z', Date.parse('2026-01-01T00:00:00Z'))).toBe(10_000);
    expect(parseReset('soon')).toBeUndefined();
  });

  it('reads OpenAI-style and Anthropic-style headers', () => {
    expect(
      parseRateLimitHeaders(
        new Headers({ 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '20s', 'x-ratelimit-remaining-tokens': '1500' }),
      ),
    ).toEqual({ remainingRequests: 0, remainingTokens: 1500, resetRequestsMs: 20_000, resetTokensMs: undefined });
    expect(parseRateLimitHeaders(new Headers({ 'anthropic-ratelimit-requests-remaining': '7' }))).toMatchObject({ remainingRequests: 7 });
    expect(parseRateLimitHeaders(new Headers({ 'content-type': 'application/json' }))).toBeUndefined();
  });

  it('parses Retry-After as seconds or as an HTTP date', () => {
    expect(parseRetryAfter('30')).toBe(30_000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', Date.parse('2026-01-01T00:00:00Z'))).toBe(30_000);
    expect(parseRetryAfter(null)).toBeUndefined();
  });
});
