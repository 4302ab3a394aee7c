import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { DataTable } from '../components/data-table';
import { Listing } from '../components/page-notices';
import { t } from '../i18n/i18n';
import type { MessageKey } from '../i18n/en';
import { inAppLink } from '../router';
import { describeSchedule, when } from './job-schedule';

/** GET /v1/heartbeats (libs/agent/src/scheduler/heartbeat-status.service.ts). */
interface Heartbeat {
  agentId: string;
  enabled: boolean;
  intervalMs: number;
  quietHours: { start: string; end: string } | null;
  timezone: string;
  dailyTokenCap: number;
  tokensToday: number;
  deliverTo: { channel: string; chatId: string } | null;
  hasTasks: boolean;
  lastRun: { dueAt: string; status: string; error: string | null } | null;
  nextDueAt: string | null;
  sessionId: string | null;
}

/**
 * Each agent's heartbeat (admin): on or off, interval, quiet hours, next and last beat, today's tokens
 * against the cap, where replies go, and its session's transcript as the run history. Read only: the
 * switch and the timing are `agents.<id>.heartbeat`, edited on the Settings page.
 */
export function HeartbeatList({ reload, onError }: { reload: number; onError: (e: unknown) => void }) {
  const [rows, setRows] = useState<Heartbeat[] | undefined>(undefined);
  useEffect(() => void api<{ heartbeats: Heartbeat[] }>('/v1/heartbeats').then((r) => setRows(r.heartbeats), onError), [reload]);
  return (
    <section class="heartbeats" aria-labelledby="heartbeats-title">
      <h2 id="heartbeats-title">{t('heartbeats.title')}</h2>
      <p class="hint">
        {t('heartbeats.intro')} <a {...inAppLink('settings', '#config-agents')}>{t('heartbeats.settingsLink')}</a>
      </p>
      <Listing items={rows} empty={t('heartbeats.none')}>
        {(items) => (
          <DataTable
            class="heartbeats-table"
            rows={items}
            rowKey={(h) => h.agentId}
            columns={[
              { label: t('heartbeats.agent'), rowHeader: true, cell: (h) => <span class="mono">{h.agentId}</span> },
              {
                label: t('heartbeats.state'),
                cell: (h) => (
                  <>
                    <span class={`state ${h.enabled ? 'state-active' : 'state-paused'}`}>
                      {h.enabled ? t('heartbeats.on') : t('heartbeats.off')}
                    </span>
                    {h.enabled && !h.hasTasks && <span class="hint"> {t('heartbeats.noTasks')}</span>}
                  </>
                ),
              },
              { label: t('heartbeats.interval'), cell: (h) => describeSchedule({ every: h.intervalMs }) },
              {
                label: t('heartbeats.quietHours'),
                cell: (h) =>
                  h.quietHours ? t('heartbeats.quietRange', { ...h.quietHours, tz: h.timezone }) : t('heartbeats.noQuietHours'),
              },
              { label: t('jobs.nextRun'), cell: (h) => when(h.nextDueAt) },
              {
                label: t('jobs.lastRun'),
                cell: (h) =>
                  h.lastRun ? (
                    <>
                      {when(h.lastRun.dueAt)}{' '}
                      <span class={`state state-run-${h.lastRun.status}`} title={h.lastRun.error ?? undefined}>
                        {t(`jobs.run.${h.lastRun.status}` as MessageKey)}
                      </span>
                    </>
                  ) : (
                    t('jobs.never')
                  ),
              },
              {
                label: t('heartbeats.tokensToday'),
                cell: (h) => t('heartbeats.tokensOfCap', { used: h.tokensToday, cap: h.dailyTokenCap }),
              },
              {
                label: t('heartbeats.deliverTo'),
                cell: (h) =>
                  h.deliverTo ? <span class="mono">{`${h.deliverTo.channel} · ${h.deliverTo.chatId}`}</span> : t('heartbeats.notSent'),
              },
              {
                label: t('heartbeats.history'),
                cell: (h) =>
                  h.sessionId ? (
                    <a {...inAppLink('sessions', `?open=${encodeURIComponent(h.sessionId)}`)}>
                      {t('heartbeats.transcript', { agent: h.agentId })}
                    </a>
                  ) : (
                    t('heartbeats.noSession')
                  ),
              },
            ]}
          />
        )}
      </Listing>
    </section>
  );
}
