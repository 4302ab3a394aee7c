import { t } from '../i18n/i18n';
import { metricOf, UsageGroup, UsageMetric } from './usage-report';

/** More rows than this would make bars too thin to read on a phone: the chart shows the largest ones and says so. */
export const CHART_ROWS = 25;
const ROW = 24;
const LABEL = 200;
const BARS = 380;
const WIDTH = LABEL + BARS + 100;

const shorten = (key: string) => (key.length > 26 ? `${key.slice(0, 25)}…` : key);
export const formatMetric = (value: number, metric: UsageMetric) =>
  metric === 'cost' ? `$${value.toFixed(value > 0 && value < 0.01 ? 6 : 4)}` : String(value);

/**
 * A horizontal bar chart in inline SVG (no chart library: the first screen's JavaScript budget),
 * one bar per group in the order given. Colours come from theme.css through classes, so it follows
 * light and dark; the numbers are also in the table below it for screen readers.
 */
export function UsageChart({ groups, metric, label }: { groups: readonly UsageGroup[]; metric: UsageMetric; label: string }) {
  const shown =
    groups.length > CHART_ROWS ? [...groups].sort((a, b) => metricOf(b, metric) - metricOf(a, metric)).slice(0, CHART_ROWS) : groups;
  const max = Math.max(...shown.map((g) => metricOf(g, metric)), 0);
  const height = shown.length * ROW + 8;
  return (
    <figure class="usage-chart">
      <svg viewBox={`0 0 ${WIDTH} ${height}`} width="100%" role="img" aria-label={label}>
        <title>{label}</title>
        {shown.map((g, i) => {
          const value = metricOf(g, metric);
          const y = i * ROW + 4;
          const width = max > 0 ? Math.max((value / max) * BARS, value > 0 ? 1 : 0) : 0;
          return (
            <g key={g.key} class="usage-bar">
              <text x={LABEL - 8} y={y + ROW / 2 + 4} text-anchor="end" class="usage-chart-label">
                {shorten(g.key)}
              </text>
              <rect x={LABEL} y={y + 3} width={width} height={ROW - 8} rx={2} class="usage-chart-bar" />
              <text x={LABEL + width + 6} y={y + ROW / 2 + 4} class="usage-chart-value">
                {formatMetric(value, metric)}
              </text>
            </g>
          );
        })}
      </svg>
      {shown.length < groups.length && (
        <figcaption class="hint">{t('usage.chartTop', { n: shown.length, total: groups.length })}</figcaption>
      )}
    </figure>
  );
}
