import { CronTime } from 'cron';
import { z } from 'zod';
import { NestclawError, parseDuration } from '@nestclaw/common';

/** When a job runs: once (`at`), at a fixed interval (`every`, ms), or on a cron expression in a time zone. */
export type Schedule = { at: string } | { every: number } | { cron: string; tz: string };

const MIN_EVERY_MS = 60_000;

const input = z.union([
  z.object({ at: z.iso.datetime({ offset: true }) }).strict(),
  z.object({ every: z.union([z.string(), z.number()]) }).strict(),
  z.object({ cron: z.string().min(1).max(120), tz: z.string().default('UTC') }).strict(),
]);

/** Validates a schedule from the API, the CLI or the cron tool; errors say what is accepted. */
export function parseSchedule(raw: unknown, now: Date): Schedule {
  const r = input.safeParse(raw);
  if (!r.success) {
    throw new NestclawError(
      'invalid_request',
      'schedule must be {"at": ISO-8601 with offset} | {"every": "30m"} | {"cron": "0 9 * * 1", "tz": "Asia/Shanghai"}',
    );
  }
  const s = r.data;
  if ('at' in s) {
    if (Date.parse(s.at) <= now.getTime()) throw new NestclawError('invalid_request', `schedule.at ${s.at} is in the past`);
    return { at: new Date(s.at).toISOString() };
  }
  if ('every' in s) {
    let ms: number;
    try {
      ms = parseDuration(s.every);
    } catch (e) {
      throw new NestclawError('invalid_request', `schedule.every: ${(e as Error).message}`);
    }
    if (ms < MIN_EVERY_MS) throw new NestclawError('invalid_request', 'schedule.every must be at least 1m');
    return { every: ms };
  }
  try {
    new Intl.DateTimeFormat('en', { timeZone: s.tz });
  } catch {
    throw new NestclawError('invalid_request', `schedule.tz "${s.tz}" is not an IANA time zone (e.g. "Asia/Shanghai")`);
  }
  try {
    new CronTime(s.cron, s.tz);
  } catch (e) {
    throw new NestclawError('invalid_request', `schedule.cron "${s.cron}": ${(e as Error).message}`);
  }
  return { cron: s.cron, tz: s.tz };
}

/**
 * The first due time strictly after `after` (undefined: never again). Cron times are computed in
 * the job's zone, so "30 2 * * *" follows daylight-saving changes (a skipped 02:30 runs at 03:00).
 * `every` keeps its phase from `anchor` (creation, then the due time just claimed).
 */
export function nextDue(s: Schedule, after: Date, anchor: Date): Date | undefined {
  if ('at' in s) {
    const at = new Date(s.at);
    return at > after ? at : undefined;
  }
  if ('every' in s) {
    const n = Math.floor((after.getTime() - anchor.getTime()) / s.every) + 1;
    return new Date(anchor.getTime() + Math.max(1, n) * s.every);
  }
  return new CronTime(s.cron, s.tz).getNextDateFrom(after, s.tz).toJSDate();
}
