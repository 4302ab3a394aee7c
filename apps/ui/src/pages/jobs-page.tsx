import { useEffect, useState } from 'preact/hooks';
import { api, messageOf } from '../api';
import { ConfirmGroup } from '../components/confirm-group';
import { DataTable } from '../components/data-table';
import { ErrorAlert, Listing, StatusLine } from '../components/page-notices';
import { t } from '../i18n/i18n';
import type { MessageKey } from '../i18n/en';
import { HeartbeatList } from '../jobs/heartbeat-list';
import { JobForm } from '../jobs/job-form';
import { describeSchedule, Schedule, when } from '../jobs/job-schedule';

type RunStatus = 'running' | 'ok' | 'error' | 'missed' | 'interrupted';
interface Job {
  id: string;
  agentId: string;
  schedule: Schedule;
  message: string;
  state: 'active' | 'paused' | 'finished';
  nextRunAt: string | null;
  lastRun: { dueAt: string; status: RunStatus; error: string | null } | null;
}
interface Run {
  id: string;
  dueAt: string;
  status: RunStatus;
  error: string | null;
}

const RECENT_RUNS = 20;
const SUMMARY_CHARS = 60;
const summary = (text: string) => (text.length > SUMMARY_CHARS ? `${text.slice(0, SUMMARY_CHARS)}…` : text);
const stateText = (s: Job['state']) => t(`jobs.state.${s}` as MessageKey);
const runText = (s: RunStatus) => t(`jobs.run.${s}` as MessageKey);
const path = <Action extends string = ''>(id: string, action = '' as Action) => `/v1/cron/${encodeURIComponent(id)}${action}` as const;

/**
 * Scheduled jobs (the session's own; the owner's are all of them): schedule, state, next and last run;
 * run now, pause or resume, remove after a confirmation; a job's recent runs; and a form to add one.
 * For `admin`, below: each agent's heartbeat.
 */
export function JobsPage({ isAdmin }: { isAdmin: boolean }) {
  const [jobs, setJobs] = useState<Job[] | undefined>(undefined);
  const [runs, setRuns] = useState<{ job: Job; runs: Run[] } | null>(null);
  const [removing, setRemoving] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  /** Bumped by Refresh: the heartbeats load again with the jobs. */
  const [reloads, setReloads] = useState(0);
  const fail = (e: unknown) => setError(t('error.generic', { message: messageOf(e) }));

  const load = async () => {
    const r = await api<{ jobs: Job[] }>('/v1/cron');
    setJobs(r.jobs);
    setError(null);
    return r.jobs;
  };
  const showRuns = async (job: Job) => {
    const r = await api<{ runs: Run[] }>(`${path(job.id, '/runs')}?limit=${RECENT_RUNS}`);
    setRuns({ job, runs: [...r.runs].reverse() });
  };
  /** Runs one action, reloads the list (and the open runs), then says what happened. */
  const act = (work: () => Promise<unknown>, done: string) =>
    void work()
      .then(load)
      .then(async (now) => {
        const open = runs && now.find((j) => j.id === runs.job.id);
        if (open) await showRuns(open);
        else setRuns(null);
        setStatus(done);
      })
      .catch(fail);
  useEffect(() => void load().catch(fail), []);

  return (
    <section class="page" aria-labelledby="jobs-title">
      <header class="page-header">
        <h1 id="jobs-title">{t('jobs.title')}</h1>
        <button
          type="button"
          onClick={() => {
            void load().catch(fail);
            setReloads((n) => n + 1);
          }}
        >
          {t('jobs.refresh')}
        </button>
      </header>
      <ErrorAlert error={error} />
      <StatusLine status={status} />
      <Listing items={jobs} empty={t('jobs.none')}>
        {(rows) => (
          <DataTable
            class="jobs-table"
            rows={rows}
            rowKey={(j) => j.id}
            columns={[
              { label: t('jobs.message'), rowHeader: true, class: 'job-message', cell: (j) => summary(j.message) },
              { label: t('jobs.schedule'), cell: (j) => describeSchedule(j.schedule) },
              { label: t('jobs.agent'), cell: (j) => j.agentId },
              { label: t('jobs.stateLabel'), cell: (j) => <span class={`state state-${j.state}`}>{stateText(j.state)}</span> },
              { label: t('jobs.nextRun'), cell: (j) => (j.state === 'active' ? when(j.nextRunAt) : '') },
              {
                label: t('jobs.lastRun'),
                cell: (j) =>
                  j.lastRun ? (
                    <>
                      {when(j.lastRun.dueAt)} <span class={`state state-run-${j.lastRun.status}`}>{runText(j.lastRun.status)}</span>
                    </>
                  ) : (
                    t('jobs.never')
                  ),
              },
              {
                label: t('jobs.actions'),
                cell: (j) =>
                  removing === j.id ? (
                    <ConfirmGroup
                      label={t('jobs.confirmLabel')}
                      question={t('jobs.confirm')}
                      confirm={t('jobs.removeForGood')}
                      cancel={t('jobs.cancel')}
                      onCancel={() => setRemoving(null)}
                      onConfirm={() => {
                        setRemoving(null);
                        act(() => api(path(j.id), { method: 'DELETE' }), t('jobs.removed', { job: summary(j.message) }));
                      }}
                    />
                  ) : (
                    <div class="actions">
                      <button
                        type="button"
                        aria-label={t('jobs.runsOf', { job: summary(j.message) })}
                        onClick={() => void showRuns(j).catch(fail)}
                      >
                        {t('jobs.runs')}
                      </button>
                      {j.state !== 'paused' && (
                        <button
                          type="button"
                          aria-label={t('jobs.runNowOf', { job: summary(j.message) })}
                          onClick={() =>
                            act(() => api(path(j.id, '/run'), { method: 'POST' }), t('jobs.queued', { job: summary(j.message) }))
                          }
                        >
                          {t('jobs.runNow')}
                        </button>
                      )}
                      {j.state === 'active' && (
                        <button
                          type="button"
                          aria-label={t('jobs.pauseOf', { job: summary(j.message) })}
                          onClick={() =>
                            act(() => api(path(j.id, '/pause'), { method: 'POST' }), t('jobs.paused', { job: summary(j.message) }))
                          }
                        >
                          {t('jobs.pause')}
                        </button>
                      )}
                      {j.state === 'paused' && (
                        <button
                          type="button"
                          class="primary"
                          aria-label={t('jobs.resumeOf', { job: summary(j.message) })}
                          onClick={() =>
                            act(() => api(path(j.id, '/resume'), { method: 'POST' }), t('jobs.resumed', { job: summary(j.message) }))
                          }
                        >
                          {t('jobs.resume')}
                        </button>
                      )}
                      <button
                        type="button"
                        class="danger"
                        aria-label={t('jobs.removeOf', { job: summary(j.message) })}
                        onClick={() => setRemoving(j.id)}
                      >
                        {t('jobs.remove')}
                      </button>
                    </div>
                  ),
              },
            ]}
          />
        )}
      </Listing>

      {runs && (
        <section class="job-runs" aria-labelledby="job-runs-title">
          <header class="page-header">
            <h2 id="job-runs-title">{t('jobs.runsTitle', { job: summary(runs.job.message) })}</h2>
            <button type="button" onClick={() => setRuns(null)}>
              {t('jobs.close')}
            </button>
          </header>
          <Listing items={runs.runs} empty={t('jobs.noRuns')}>
            {(rows) => (
              <DataTable
                rows={rows}
                rowKey={(r) => r.id}
                columns={[
                  { label: t('jobs.due'), rowHeader: true, cell: (r) => when(r.dueAt) },
                  { label: t('jobs.stateLabel'), cell: (r) => <span class={`state state-run-${r.status}`}>{runText(r.status)}</span> },
                  { label: t('jobs.error'), cell: (r) => r.error ?? '' },
                ]}
              />
            )}
          </Listing>
        </section>
      )}

      <JobForm onAdded={(job) => act(async () => job, t('jobs.added', { job: summary(job.message) }))} onError={fail} />
      {isAdmin && <HeartbeatList reload={reloads} onError={fail} />}
    </section>
  );
}
