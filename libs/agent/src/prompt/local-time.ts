/** Formatters per time zone: toLocaleString with options builds a new Intl.DateTimeFormat (~50 µs) on every call. */
const formatters = new Map<string, { stamp: Intl.DateTimeFormat; weekday: Intl.DateTimeFormat }>();
/** The last answer per zone: the text changes once a minute, and every turn asks (two formats cost ~20 µs). */
const lastByZone = new Map<string, { minute: number; text: string }>();

/** "2026-03-06 00:30 Friday" in the zone; throws a RangeError for an unknown zone. */
export function localTime(now: Date, tz: string): string {
  // Every zone's offset is a whole number of minutes, so one UTC minute is one local minute.
  const minute = Math.floor(now.getTime() / 60_000);
  const last = lastByZone.get(tz);
  if (last?.minute === minute) return last.text;
  let f = formatters.get(tz);
  if (!f) {
    f = {
      stamp: new Intl.DateTimeFormat('sv-SE', { timeZone: tz, hourCycle: 'h23', dateStyle: 'short', timeStyle: 'short' }),
      weekday: new Intl.DateTimeFormat('en-US', { timeZone: tz, weekday: 'long' }),
    };
    formatters.set(tz, f);
  }
  const text = `${f.stamp.format(now)} ${f.weekday.format(now)}`;
  lastByZone.set(tz, { minute, text });
  return text;
}
