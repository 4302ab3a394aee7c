import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, messageOf } from '../api';
import { language, t } from '../i18n/i18n';

interface ReindexProgress {
  state: 'idle' | 'running' | 'done' | 'failed';
  done: number;
  total: number;
  startedAt?: string;
  finishedAt?: string;
  error?: string;
}

/** GET /v1/memory/status: owner and admin sessions get the whole index; anyone else their own counts. */
interface MemoryStatus {
  mode: 'hybrid' | 'keyword-only';
  memories: number;
  chunks: number;
  indexedChunks?: number;
  queue?: { pending: number; parked: number };
  index?: { ready: boolean; current: boolean; builtAt: string | null };
  reindex?: ReindexProgress;
}

const POLL_MS = 1000;
const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString(language()) : t('memory.never'));

/** The memory index as the session may see it; admins can rebuild it and watch the rebuild's progress. */
export function MemoryStatusPanel({ canReindex }: { canReindex: boolean }) {
  const [status, setStatus] = useState<MemoryStatus | null>(null);
  const [progress, setProgress] = useState<ReindexProgress | null>(null);
  const [error, setError] = useState<string | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const fail = (e: unknown) =>
    setError(
      e instanceof ApiError && e.code === 'memory_reindex_running'
        ? t('memory.reindexBusy')
        : t('error.generic', { message: messageOf(e) }),
    );

  const load = async () => {
    const s = await api<MemoryStatus>('/v1/memory/status');
    setStatus(s);
    // A rebuild finished before this page opened is old news (the index's build time says when); one running or failed is not.
    if (s.reindex?.state === 'running' || s.reindex?.state === 'failed') setProgress(s.reindex);
    setError(null);
    return s;
  };
  /** Reads the rebuild's progress every second while it runs, then the status it left behind. */
  const follow = async () => {
    const p = await api<ReindexProgress>('/admin/reindex');
    setProgress(p);
    if (p.state === 'running') timer.current = setTimeout(() => void follow().catch(fail), POLL_MS);
    else await load();
  };
  useEffect(() => {
    void load()
      .then((s) => (s.reindex?.state === 'running' && canReindex ? follow() : undefined))
      .catch(fail);
    return () => clearTimeout(timer.current);
  }, []);

  const running = progress?.state === 'running';
  return (
    <section aria-labelledby="memory-status-title">
      <div class="page-header">
        <h2 id="memory-status-title">{t('memory.status')}</h2>
        <div class="toolbar">
          <button type="button" onClick={() => void load().catch(fail)}>
            {t('memory.refreshStatus')}
          </button>
          {canReindex && (
            <button
              type="button"
              disabled={running}
              onClick={() =>
                void api<ReindexProgress>('/admin/reindex', { method: 'POST' })
                  .then((p) => {
                    setProgress(p);
                    return follow();
                  })
                  .catch(fail)
              }
            >
              {t('memory.reindex')}
            </button>
          )}
        </div>
      </div>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {status && (
        <dl class="usage-totals memory-status">
          <div>
            <dt>{t('memory.mode')}</dt>
            <dd>{t(`memory.mode.${status.mode}`)}</dd>
          </div>
          <div>
            <dt>{t('memory.memories')}</dt>
            <dd>{status.memories}</dd>
          </div>
          <div>
            <dt>{t('memory.chunks')}</dt>
            <dd>{status.chunks}</dd>
          </div>
          {status.indexedChunks !== undefined && (
            <div>
              <dt>{t('memory.indexedChunks')}</dt>
              <dd>{status.indexedChunks}</dd>
            </div>
          )}
          {status.queue && (
            <div>
              <dt>{t('memory.queue')}</dt>
              <dd>{t('memory.queueCounts', { pending: status.queue.pending, parked: status.queue.parked })}</dd>
            </div>
          )}
          {status.index && (
            <div>
              <dt>{t('memory.index')}</dt>
              <dd>
                {status.index.ready
                  ? status.index.current
                    ? t('memory.index.current')
                    : t('memory.index.stale')
                  : t('memory.index.building')}
              </dd>
            </div>
          )}
          {status.index && (
            <div>
              <dt>{t('memory.builtAt')}</dt>
              <dd>{when(status.index.builtAt)}</dd>
            </div>
          )}
        </dl>
      )}
      {progress && progress.state !== 'idle' && (
        <div class="memory-reindex" role="status">
          <label>
            {t(`memory.reindex.${progress.state}`, { done: progress.done, total: progress.total, error: progress.error ?? '' })}{' '}
            <progress value={progress.done} max={Math.max(progress.total, 1)} />
          </label>
        </div>
      )}
    </section>
  );
}
