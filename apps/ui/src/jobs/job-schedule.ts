import { language, t } from '../i18n/i18n';

/** A schedule as GET /v1/cron returns it (libs/agent/src/scheduler/schedule.ts). */
export type Schedule = { at: string } | { every: number } | { cron: string; tz: string };

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString(language()) : '');

/** "Every 2 h", "Cron 0 9 * * 1 (Asia/Shanghai)", "Once at …", in the page's language. */
export function describeSchedule(s: Schedule): string {
  if ('at' in s) return t('jobs.scheduleAt', { when: when(s.at) });
  if ('every' in s) {
    if (s.every % DAY === 0) return t('jobs.everyDays', { n: s.every / DAY });
    if (s.every % HOUR === 0) return t('jobs.everyHours', { n: s.every / HOUR });
    return t('jobs.everyMinutes', { n: Math.round(s.every / MINUTE) });
  }
  return t('jobs.scheduleCron', { expr: s.cron, tz: s.tz });
}
