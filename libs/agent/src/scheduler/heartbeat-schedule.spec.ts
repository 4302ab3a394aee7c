import { heartbeatDayStart, heartbeatSlot, inQuietHours, nextHeartbeatAt } from './heartbeat-schedule';

const MIN = 60_000;
const hb = (extra: object = {}) => ({ enabled: true, interval: 30 * MIN, daily_token_cap: 1000, ...extra });
const at = (iso: string) => new Date(iso);
const next = (now: string, state: { slotDone: boolean; capped: boolean }, extra: object = {}, tz = 'UTC') =>
  nextHeartbeatAt(at(now), hb(extra), tz, state).toISOString();

describe('heartbeat schedule', () => {
  it('puts a time in the interval slot of the epoch grid, and the cap in its UTC day', () => {
    expect(heartbeatSlot(at('2027-02-03T09:47:12Z'), 30 * MIN).toISOString()).toBe('2027-02-03T09:30:00.000Z');
    expect(heartbeatDayStart(at('2027-02-03T23:59:59Z')).toISOString()).toBe('2027-02-03T00:00:00.000Z');
  });

  it('reads quiet hours in the agent timezone, across midnight when the start is after the end', () => {
    const q = hb({ quiet_hours: { start: '22:00', end: '07:00' } });
    expect(inQuietHours(at('2027-02-03T23:30:00Z'), q, 'UTC')).toBe(true);
    expect(inQuietHours(at('2027-02-03T07:00:00Z'), q, 'UTC')).toBe(false);
    // 15:00 UTC is 23:00 in Shanghai.
    expect(inQuietHours(at('2027-02-03T15:00:00Z'), q, 'Asia/Shanghai')).toBe(true);
    expect(inQuietHours(at('2027-02-03T15:00:00Z'), q, 'No/Such_Zone')).toBe(false);
  });

  it('is due now while the current slot has yet to beat, else at the next slot', () => {
    expect(next('2027-02-03T09:47:12Z', { slotDone: false, capped: false })).toBe('2027-02-03T09:47:12.000Z');
    expect(next('2027-02-03T09:47:12Z', { slotDone: true, capped: false })).toBe('2027-02-03T10:00:00.000Z');
  });

  it('waits for the end of quiet hours', () => {
    const quiet = { quiet_hours: { start: '22:00', end: '07:00' } };
    expect(next('2027-02-03T21:45:00Z', { slotDone: true, capped: false }, quiet)).toBe('2027-02-04T07:00:00.000Z');
    expect(next('2027-02-03T23:10:30Z', { slotDone: false, capped: false }, quiet)).toBe('2027-02-04T07:00:00.000Z');
    // 07:00 in Shanghai is 23:00 UTC the day before.
    expect(next('2027-02-03T15:00:00Z', { slotDone: true, capped: false }, quiet, 'Asia/Shanghai')).toBe('2027-02-03T23:00:00.000Z');
  });

  it('waits for the next UTC day once the daily cap is spent, skipping the slot that spans midnight', () => {
    expect(next('2027-02-03T10:20:00Z', { slotDone: false, capped: true })).toBe('2027-02-04T00:00:00.000Z');
    // 5 h slots: 22:00–03:00 spans midnight and was refused before it; the next starts at 03:00.
    expect(next('2027-02-03T22:10:00Z', { slotDone: true, capped: true }, { interval: 5 * 60 * MIN })).toBe('2027-02-04T03:00:00.000Z');
  });
});
