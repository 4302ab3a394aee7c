import { useEffect, useRef, useState } from 'preact/hooks';
import { api, messageOf } from '../api';
import { language, t } from '../i18n/i18n';

/** GET /v1/memory/:id. */
interface Memory {
  id: string;
  content: string;
  source: string;
  scope: string;
  agentId: string;
  metadata: Record<string, unknown> | null;
  supersedes: string | null;
  superseded: boolean;
  createdAt: string;
  updatedAt: string;
}

const when = (iso: string) => new Date(iso).toLocaleString(language());

/**
 * One memory in full. Its content is untrusted text (anything a person or a model stored): it is a
 * text node, never HTML.
 */
export function MemoryDetail({ id, onClose }: { id: string; onClose: () => void }) {
  const [memory, setMemory] = useState<Memory | null>(null);
  const [error, setError] = useState<string | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    setMemory(null);
    api<Memory>(`/v1/memory/${encodeURIComponent(id)}`).then(
      (m) => {
        setMemory(m);
        setError(null);
      },
      (e: unknown) => setError(t('error.generic', { message: messageOf(e) })),
    );
  }, [id]);
  useEffect(() => heading.current?.focus(), [memory]);

  return (
    <section class="memory-detail" aria-labelledby="memory-detail-title">
      <div class="page-header">
        <h2 id="memory-detail-title" tabIndex={-1} ref={heading}>
          {t('memory.detail')}
        </h2>
        <button type="button" onClick={onClose}>
          {t('memory.close')}
        </button>
      </div>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {memory && (
        <>
          <pre class="memory-content" tabIndex={0} aria-label={t('memory.content')}>
            {memory.content}
          </pre>
          <dl class="facts">
            <dt>{t('memory.id')}</dt>
            <dd class="mono">{memory.id}</dd>
            <dt>{t('memory.person')}</dt>
            <dd class="mono">{memory.scope}</dd>
            <dt>{t('memory.agent')}</dt>
            <dd>{memory.agentId}</dd>
            <dt>{t('memory.source')}</dt>
            <dd>{memory.source}</dd>
            <dt>{t('memory.created')}</dt>
            <dd>{when(memory.createdAt)}</dd>
            <dt>{t('memory.updated')}</dt>
            <dd>{when(memory.updatedAt)}</dd>
            {memory.supersedes && (
              <>
                <dt>{t('memory.supersedes')}</dt>
                <dd class="mono">{memory.supersedes}</dd>
              </>
            )}
            {memory.superseded && (
              <>
                <dt>{t('memory.superseded')}</dt>
                <dd>{t('memory.yes')}</dd>
              </>
            )}
            {memory.metadata && Object.keys(memory.metadata).length > 0 && (
              <>
                <dt>{t('memory.metadata')}</dt>
                <dd>
                  <pre class="mono">{JSON.stringify(memory.metadata, null, 2)}</pre>
                </dd>
              </>
            )}
          </dl>
        </>
      )}
    </section>
  );
}
