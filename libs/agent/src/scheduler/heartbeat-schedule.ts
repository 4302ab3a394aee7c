import type { AgentConfig } from '@nestclaw/config';

type Heartbeat = AgentConfig['heartbeat'];
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/**
 * When heartbeats beat, as one set of rules for the service that runs them and the page that shows
 * them. Slots are `interval` long on the epoch's grid; a slot beats once, at the first check (each
 * minute) outside quiet hours; the daily token cap counts from UTC midnight.
 */

/** The start of the interval slot `at` falls in. */
export const heartbeatSlot = (at: Date, interval: number): Date => new Date(Math.floor(at.getTime() / interval) * interval);

/** The UTC day the daily token cap is counted in starts here. */
export const heartbeatDayStart = (at: Date): Date => new Date(Math.floor(at.getTime() / DAY) * DAY);

/** The agent's local time as HH:MM (UTC when its timezone is unknown to this runtime). */
function localHhmm(at: Date, timezone: string): string {
  try {
    return at.toLocaleTimeString('en-GB', { timeZone: timezone, hour: '2-digit', minute: '2-digit', hour12: false });
  } catch {
    return at.toISOString().slice(11, 16);
  }
}

/** Whether `at` is within the heartbeat's quiet hours (a start after the end spans midnight). */
export function inQuietHours(at: Date, hb: Heartbeat, timezone: string): boolean {
  const q = hb.quiet_hours;
  if (!q) return false;
  const hhmm = localHhmm(at, timezone);
  return q.start <= q.end ? hhmm >= q.start && hhmm < q.end : hhmm >= q.start || hhmm < q.end;
}

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** The first minute from `at` on that is outside quiet hours (`at` itself when it is). */
function afterQuietHours(at: Date, hb: Heartbeat, timezone: string): Date {
  let t = at;
  // A daylight-saving change can land the first jump inside the quiet hours still: look again.
  for (let i = 0; i < 3 && hb.quiet_hours && inQuietHours(t, hb, timezone); i++) {
    const wait = (minutesOf(hb.quiet_hours.end) - minutesOf(localHhmm(t, timezone)) + 1440) % 1440 || 1440;
    t = new Date(Math.floor(t.getTime() / MINUTE) * MINUTE + wait * MINUTE);
  }
  return t;
}

/**
 * When the heartbeat next beats, by the rules above: now, while the current slot has yet to beat;
 * else at the next slot's start; after a spent daily cap, at the first slot from the next UTC day on;
 * in each case moved past quiet hours. (When the check finds HEARTBEAT.md empty it calls no model.)
 */
export function nextHeartbeatAt(now: Date, hb: Heartbeat, timezone: string, state: { slotDone: boolean; capped: boolean }): Date {
  let at = state.slotDone ? new Date(heartbeatSlot(now, hb.interval).getTime() + hb.interval) : now;
  if (state.capped) {
    const tomorrow = heartbeatDayStart(now).getTime() + DAY;
    // The slot that spans midnight was already refused today: the next one starting after it beats.
    if (at.getTime() < tomorrow) at = new Date(Math.ceil(tomorrow / hb.interval) * hb.interval);
  }
  return afterQuietHours(at, hb, timezone);
}
