import { parseTimestamp, timestampFresh } from './webhook-timestamp';

describe('parseTimestamp', () => {
  it('reads Unix seconds and refuses anything else', () => {
    expect(parseTimestamp('1795000000')).toBe(1795000000);
    expect(parseTimestamp(undefined)).toBeUndefined();
    expect(parseTimestamp('')).toBeUndefined();
    expect(parseTimestamp('1795000000.5')).toBeUndefined();
    expect(parseTimestamp('-1')).toBeUndefined();
    expect(parseTimestamp(' 1795000000')).toBeUndefined();
    expect(parseTimestamp('2026-11-28T00:00:00Z')).toBeUndefined();
    expect(parseTimestamp('9'.repeat(13))).toBeUndefined();
  });
});

describe('timestampFresh', () => {
  const now = new Date(1_795_000_000_000);
  it('accepts a timestamp within the tolerance on either side, edges included', () => {
    expect(timestampFresh(1_795_000_000, now, 300)).toBe(true);
    expect(timestampFresh(1_795_000_000 - 300, now, 300)).toBe(true);
    expect(timestampFresh(1_795_000_000 + 300, now, 300)).toBe(true);
  });
  it('refuses a stale or a future timestamp beyond it', () => {
    expect(timestampFresh(1_795_000_000 - 301, now, 300)).toBe(false);
    expect(timestampFresh(1_795_000_000 + 301, now, 300)).toBe(false);
  });
});
