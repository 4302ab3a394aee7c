import type { UsageGroup } from './usage-report';

const COLUMNS: [string, (g: UsageGroup) => string | number][] = [
  ['key', (g) => g.key],
  ['calls', (g) => g.calls],
  ['billed_calls', (g) => g.billedCalls],
  ['failed_calls', (g) => g.failedCalls],
  ['cached_calls', (g) => g.cachedCalls],
  ['input_tokens', (g) => g.inputTokens],
  ['output_tokens', (g) => g.outputTokens],
  ['cached_input_tokens', (g) => g.cachedInputTokens],
  ['cost_usd', (g) => g.costUsd],
];

/**
 * One text cell: quoted when it holds a comma, quote or line break; a leading `=`, `+`, `-`, `@`
 * (or tab / carriage return) gets a `'` first, so a spreadsheet shows a session key such as
 * `=HYPERLINK(…)` as text instead of running it as a formula.
 */
export function csvCell(value: string | number): string {
  if (typeof value === 'number') return String(value);
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** The same rows the page shows, as CSV (RFC 4180: CRLF line ends), the grouping named in the first column. */
export function usageCsv(groupBy: string, groups: readonly UsageGroup[]): string {
  const header = [groupBy, ...COLUMNS.slice(1).map(([name]) => name)].join(',');
  const rows = groups.map((g) => COLUMNS.map(([, get]) => csvCell(get(g))).join(','));
  return [header, ...rows].join('\r\n') + '\r\n';
}
