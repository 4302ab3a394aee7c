import { localTime } from './local-time';

describe('localTime', () => {
  it("gives the date, 24-hour time and weekday in the agent's zone", () => {
    const now = new Date('2026-03-05T16:30:00Z');
    expect(localTime(now, 'Asia/Shanghai')).toBe('2026-03-06 00:30 Friday');
    expect(localTime(now, 'America/New_York')).toBe('2026-03-05 11:30 Thursday');
    expect(localTime(now, 'UTC')).toBe('2026-03-05 16:30 Thursday');
  });

  it('follows the time from call to call (formatters are cached per zone, not the result)', () => {
    expect(localTime(new Date('2026-03-05T00:05:00Z'), 'UTC')).toBe('2026-03-05 00:05 Thursday');
    expect(localTime(new Date('2026-03-07T23:59:00Z'), 'UTC')).toBe('2026-03-07 23:59 Saturday');
  });

  it('throws for a zone that does not exist, so the caller can say so', () => {
    expect(() => localTime(new Date(), 'Mars/Olympus_Mons')).toThrow(RangeError);
  });
});
