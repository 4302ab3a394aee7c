import { useEffect, useState } from 'preact/hooks';
import { api, messageOf } from '../api';
import { ErrorAlert } from '../components/page-notices';
import { t } from '../i18n/i18n';
import { BudgetsPanel } from '../usage/budgets-panel';
import { formatMetric, UsageChart } from '../usage/usage-chart';
import { usageCsv } from '../usage/usage-csv';
import { PAGE_GROUPS, PageGroup, UsageGroup, UsageMetric, UsageReport } from '../usage/usage-report';

const DAY_MS = 86_400_000;
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Days in time order; anything else largest spend first (then most tokens). */
function ordered(groupBy: PageGroup, groups: UsageGroup[]): UsageGroup[] {
  if (groupBy === 'day') return [...groups].sort((a, b) => a.key.localeCompare(b.key));
  return [...groups].sort((a, b) => b.costUsd - a.costUsd || b.inputTokens + b.outputTokens - (a.inputTokens + a.outputTokens));
}

/**
 * Saves the CSV through a Blob link: built here from the rows already loaded, so the file is what
 * the page shows. The BOM makes spreadsheet programs read it as UTF-8 (Chinese session titles).
 */
function download(name: string, csv: string): void {
  const url = URL.createObjectURL(new Blob(['\ufeff', csv], { type: 'text/csv;charset=utf-8' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/** Tokens and cost from the call ledger (`GET /v1/usage`) by day, model, agent or session: totals, a chart, the table, CSV. */
export function UsagePage() {
  const [from, setFrom] = useState(() => isoDay(Date.now() - 29 * DAY_MS));
  const [to, setTo] = useState(() => isoDay(Date.now()));
  const [groupBy, setGroupBy] = useState<PageGroup>('day');
  const [metric, setMetric] = useState<UsageMetric>('cost');
  const [report, setReport] = useState<(UsageReport & { shownAs: PageGroup }) | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = async (group = groupBy) => {
    try {
      const q = new URLSearchParams({ from, to, groupBy: group });
      const r = await api<UsageReport>(`/v1/usage?${q}`);
      setReport({ ...r, groups: ordered(group, r.groups), shownAs: group });
      setError(null);
    } catch (e) {
      setError(t('error.generic', { message: messageOf(e) }));
    }
  };
  useEffect(() => void load(), []);
  const groupLabel = t(`usage.group.${groupBy}`);
  const metricLabel = t(`usage.metric.${metric}`);

  return (
    <section class="page" aria-labelledby="usage-title">
      <h1 id="usage-title">{t('usage.title')}</h1>
      <form
        class="toolbar usage-controls"
        onSubmit={(e) => {
          e.preventDefault();
          void load();
        }}
      >
        <label class="inline-field">
          {t('usage.from')}
          <input type="date" value={from} max={to} required onInput={(e) => setFrom(e.currentTarget.value)} />
        </label>
        <label class="inline-field">
          {t('usage.to')}
          <input type="date" value={to} min={from} required onInput={(e) => setTo(e.currentTarget.value)} />
        </label>
        <label class="inline-field">
          {t('usage.groupBy')}
          <select
            value={groupBy}
            onChange={(e) => {
              const next = e.currentTarget.value as PageGroup;
              setGroupBy(next);
              void load(next);
            }}
          >
            {PAGE_GROUPS.map((g) => (
              <option key={g} value={g}>
                {t(`usage.group.${g}`)}
              </option>
            ))}
          </select>
        </label>
        <label class="inline-field">
          {t('usage.metric')}
          <select value={metric} onChange={(e) => setMetric(e.currentTarget.value as UsageMetric)}>
            <option value="cost">{t('usage.metric.cost')}</option>
            <option value="tokens">{t('usage.metric.tokens')}</option>
          </select>
        </label>
        <button type="submit">{t('usage.show')}</button>
        <button
          type="button"
          disabled={!report || report.groups.length === 0}
          onClick={() => report && download(`nestclaw-usage-${report.shownAs}-${from}-${to}.csv`, usageCsv(report.shownAs, report.groups))}
        >
          {t('usage.export')}
        </button>
      </form>
      <ErrorAlert error={error} />
      {report && (
        <>
          <h2>{t('usage.totals')}</h2>
          <dl class="usage-totals">
            <div>
              <dt>{t('usage.calls')}</dt>
              <dd>{report.totals.calls}</dd>
            </div>
            <div>
              <dt>{t('usage.failedCalls')}</dt>
              <dd>{report.totals.failedCalls}</dd>
            </div>
            <div>
              <dt>{t('usage.inputTokens')}</dt>
              <dd>{report.totals.inputTokens}</dd>
            </div>
            <div>
              <dt>{t('usage.outputTokens')}</dt>
              <dd>{report.totals.outputTokens}</dd>
            </div>
            <div>
              <dt>{t('usage.cost')}</dt>
              <dd>{formatMetric(report.totals.costUsd, 'cost')}</dd>
            </div>
          </dl>
          {report.groups.length === 0 ? (
            <p class="empty">{t('usage.none')}</p>
          ) : (
            <>
              <UsageChart
                groups={report.groups}
                metric={metric}
                label={t('usage.chartLabel', { metric: metricLabel, group: groupLabel })}
              />
              <div class="table-scroll">
                <table class="usage-table">
                  <thead>
                    <tr>
                      <th scope="col">{t(`usage.group.${report.shownAs}`)}</th>
                      <th scope="col">{t('usage.calls')}</th>
                      <th scope="col">{t('usage.inputTokens')}</th>
                      <th scope="col">{t('usage.outputTokens')}</th>
                      <th scope="col">{t('usage.cost')}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {report.groups.map((g) => (
                      <tr key={g.key}>
                        <th scope="row" class="mono">
                          {g.key}
                        </th>
                        <td>{g.calls}</td>
                        <td>{g.inputTokens}</td>
                        <td>{g.outputTokens}</td>
                        <td>{formatMetric(g.costUsd, 'cost')}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </>
          )}
        </>
      )}
      <BudgetsPanel />
    </section>
  );
}
