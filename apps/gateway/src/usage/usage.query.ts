import { z } from 'zod';
import { NestclawError } from '@nestclaw/common';
import { USAGE_GROUPS, UsageGroupBy } from '@nestclaw/provider';

const DAY_MS = 86_400_000;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** A calendar date (UTC) or an ISO date-time with offset. */
const instant = z.union([z.iso.date(), z.iso.datetime({ offset: true })], {
  error: 'must be a date (2026-01-31) or an ISO date-time (2026-01-31T12:00:00Z)',
});

export const usageQuerySchema = z
  .object({
    from: instant.optional(),
    to: instant.optional(),
    groupBy: z.enum(USAGE_GROUPS).default('day'),
  })
  .strict();

export type UsageQueryInput = z.output<typeof usageQuerySchema>;

export interface UsageQuery {
  from: Date;
  /** Exclusive. */
  to: Date;
  groupBy: UsageGroupBy;
}

/**
 * `from` is inclusive; `to` is exclusive, except that a bare date means "through that day".
 * Defaults: the 30 days up to now.
 */
export function usageWindow({ from, to, groupBy }: UsageQueryInput): UsageQuery {
  const end = to ? new Date(Date.parse(to) + (DATE_ONLY.test(to) ? DAY_MS : 0)) : new Date();
  const start = from ? new Date(from) : new Date(end.getTime() - 30 * DAY_MS);
  if (start >= end) throw new NestclawError('invalid_request', 'Invalid query: from: must be before to');
  return { from: start, to: end, groupBy };
}
