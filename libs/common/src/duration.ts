/** Parses "500ms", "5s", "2m", "1h", "1d" or a bare number of milliseconds. */
export function parseDuration(value: string | number): number {
  if (typeof value === 'number') return value;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(value);
  if (!m) throw new Error(`"${value}" is not a duration (expected e.g. 500ms, 5s, 2m, 1h, 1d)`);
  const n = Number(m[1]);
  switch (m[2] ?? 'ms') {
    case 'ms':
      return n;
    case 's':
      return n * 1000;
    case 'm':
      return n * 60_000;
    case 'd':
      return n * 86_400_000;
    default:
      return n * 3_600_000;
  }
}
