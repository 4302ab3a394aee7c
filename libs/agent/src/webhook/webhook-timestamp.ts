const UNIX_SECONDS = /^[0-9]{1,12}$/;

/** A timestamped hook's header value as Unix seconds; undefined when missing or not a plain integer. */
export function parseTimestamp(header: string | undefined): number | undefined {
  return header !== undefined && UNIX_SECONDS.test(header) ? Number(header) : undefined;
}

/**
 * Whether a request signed at `timestamp` (Unix seconds) may be accepted at `now`: within
 * `toleranceS` either way, so a captured request stops working once that window has passed and a
 * sender's clock may run a little ahead of the gateway's.
 */
export function timestampFresh(timestamp: number, now: Date, toleranceS: number): boolean {
  return Math.abs(now.getTime() / 1000 - timestamp) <= toleranceS;
}
