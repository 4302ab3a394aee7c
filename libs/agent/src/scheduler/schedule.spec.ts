import { nextDue, parseSchedule } from './schedule';

const now = new Date('2026-03-27T00:00:00Z');

describe('schedules', () => {
  it('follows a cron expression in its time zone across a daylight-saving change', () => {
    const s = parseSchedule({ cron: '30 2 * * *', tz: 'Europe/Berlin' }, now);
    const dues: string[] = [];
    let t = now;
    for (let i = 0; i < 4; i++) {
      t = nextDue(s, t, now)!;
      dues.push(t.toISOString());
    }
    // 02:30 CET = 01:30Z; on 29 March 02:30 does not exist and runs at 03:00 CEST = 01:00Z.
    expect(dues).toEqual(['2026-03-27T01:30:00.000Z', '2026-03-28T01:30:00.000Z', '2026-03-29T01:00:00.000Z', '2026-03-30T00:30:00.000Z']);
  });

  it('runs a one-shot once and an interval on its phase', () => {
    const at = parseSchedule({ at: '2026-03-27T09:00:00+08:00' }, now);
    expect(nextDue(at, now, now)?.toISOString()).toBe('2026-03-27T01:00:00.000Z');
    expect(nextDue(at, new Date('2026-03-27T01:00:00Z'), now)).toBeUndefined();
    const every = parseSchedule({ every: '30m' }, now);
    expect(nextDue(every, new Date('2026-03-27T01:10:00Z'), now)?.toISOString()).toBe('2026-03-27T01:30:00.000Z');
  });

  it('refuses past times, tiny intervals, bad zones and bad expressions with a clear message', () => {
    expect(() => parseSchedule({ at: '2026-03-26T00:00:00Z' }, now)).toThrow('in the past');
    expect(() => parseSchedule({ every: '10s' }, now)).toThrow('at least 1m');
    expect(() => parseSchedule({ cron: '0 9 * * 1', tz: 'Mars/Olympus' }, now)).toThrow('IANA time zone');
    expect(() => parseSchedule({ cron: 'every monday', tz: 'UTC' }, now)).toThrow('schedule.cron');
    expect(() => parseSchedule({ when: 'soon' }, now)).toThrow('schedule must be');
  });

  it('holds every form to one run a minute: a seconds field may hold one value only', () => {
    expect(() => parseSchedule({ cron: '* * * * * *' }, now)).toThrow('more than once a minute');
    expect(() => parseSchedule({ cron: '*/30 * * * * *' }, now)).toThrow('more than once a minute');
    expect(parseSchedule({ cron: '30 * * * * *' }, now)).toEqual({ cron: '30 * * * * *', tz: 'UTC' });
  });

  it('refuses a cron that never fires and an interval too large for a date, as invalid requests', () => {
    expect(() => parseSchedule({ cron: '0 0 31 2 *' }, now)).toThrow('never fires');
    expect(() => parseSchedule({ every: '99999999999999999999d' }, now)).toThrow('at most 366d');
    expect(() => parseSchedule({ every: 1e308 }, now)).toThrow(expect.objectContaining({ code: 'invalid_request' }));
  });
});
