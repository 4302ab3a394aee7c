/** Formatters per time zone: toLocaleString with options builds a new Intl.DateTimeFormat (~50 µs) on every call. */
const formatters = new Map<string, { stamp: Intl.DateTimeFormat; weekday: Intl.DateTimeFormat }>();

/** "2026-03-06 00:30 Friday" in the zone; throws a RangeError for an unknown zone. */
export function localTime(now: Date, tz: string): string {
  let f = formatters.get(tz);
  if (!f) {
    f = {
      stamp: new Intl.DateTimeFormat('sv-SE', { timeZone: tz, hourCycle: 'h23', dateStyle: 'short', timeStyle: 'short' }),
      weekday: new Intl.DateTimeFormat('en-US', { timeZone: tz, weekday: 'long' }),
    };
    formatters.set(tz, f);
  }
  return `${f.stamp.format(now)} ${f.weekday.format(now)}`;
}
