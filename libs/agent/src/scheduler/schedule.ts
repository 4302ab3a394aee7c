import { CronTime } from 'cron';
import { z } from 'zod';
import { NestclawError, parseDuration } from '@nestclaw/common';

/** When a job runs: once (`at`), at a fixed interval (`every`, ms), or on a cron expression in a time zone. */
export type Schedule = { at: string } | { every: number } | { cron: string; tz: string };

const MIN_EVERY_MS = 60_000;
const MAX_EVERY_MS = 366 * 86_400_000;

/** Every schedule error ends with what a schedule may be. */
const FORMS =
  'a schedule is {"at": ISO-8601 with offset} | {"every": "30m"} (1m to 366d) | {"cron": "0 9 * * 1", "tz": "Asia/Shanghai"}, at least 1 minute apart';

const input = z.union([
  z.object({ at: z.iso.datetime({ offset: true }) }).strict(),
  z.object({ every: z.union([z.string(), z.number()]) }).strict(),
  z.object({ cron: z.string().min(1).max(120), tz: z.string().default('UTC') }).strict(),
]);

const invalid = (problem: string) => new NestclawError('invalid_request', `${problem}; ${FORMS}`);

/** Validates a schedule from the API, the CLI or the cron tool; errors say what is accepted. */
export function parseSchedule(raw: unknown, now: Date): Schedule {
  const r = input.safeParse(raw);
  if (!r.success) throw invalid('schedule must be one of the accepted forms');
  const s = r.data;
  if ('at' in s) {
    const at = new Date(s.at);
    if (Number.isNaN(at.getTime())) throw invalid(`schedule.at ${s.at} is not a date`);
    if (at.getTime() <= now.getTime()) throw invalid(`schedule.at ${s.at} is in the past`);
    return { at: at.toISOString() };
  }
  if ('every' in s) {
    let ms: number;
    try {
      ms = parseDuration(s.every);
    } catch (e) {
      throw invalid(`schedule.every: ${(e as Error).message}`);
    }
    if (!Number.isFinite(ms) || ms < MIN_EVERY_MS) throw invalid('schedule.every must be at least 1m');
    if (ms > MAX_EVERY_MS) throw invalid('schedule.every must be at most 366d');
    return { every: ms };
  }
  return parseCron(s.cron, s.tz, now);
}

/**
 * A cron expression must parse, fire at all (`0 0 31 2 *` never does) and not fire more than once a
 * minute: a seconds field (the six-field form) may hold one value only (`30 * * * * *`).
 */
function parseCron(cron: string, tz: string, now: Date): Schedule {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
  } catch {
    throw invalid(`schedule.tz "${tz}" is not an IANA time zone (e.g. "Asia/Shanghai")`);
  }
  let time: CronTime;
  try {
    time = new CronTime(cron, tz);
  } catch (e) {
    throw invalid(`schedule.cron "${cron}": ${(e as Error).message}`);
  }
  const seconds = time.toJSON()[0];
  if (!/^\d+$/.test(seconds)) throw invalid(`schedule.cron "${cron}" runs more than once a minute (at least 1 minute apart)`);
  try {
    time.getNextDateFrom(now, tz);
  } catch {
    throw invalid(`schedule.cron "${cron}" never fires`);
  }
  return { cron, tz };
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
