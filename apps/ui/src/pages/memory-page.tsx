import { useRef, useState } from 'preact/hooks';
import { api, messageOf } from '../api';
import { language, t } from '../i18n/i18n';
import { MemoryDetail } from '../memory/memory-detail';
import { MemoryStatusPanel } from '../memory/memory-status-panel';

/** GET /v1/memory/search. */
interface Hit {
  id: string;
  score: number;
  content: string;
  source: string;
  createdAt: string;
}
type Mode = '' | 'keyword' | 'vector' | 'hybrid';
interface Search {
  q: string;
  agentId: string;
  person: string;
  mode: Mode;
}
interface Found {
  search: Search;
  mode: string;
  fallback?: string;
  results: Hit[];
}

const RESULTS = 20;
const PREVIEW_CHARS = 300;
const when = (iso: string) => new Date(iso).toLocaleString(language());
const preview = (text: string) => (text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS)}…` : text);

function searchPath(s: Search): string {
  const params = new URLSearchParams({ q: s.q, k: String(RESULTS), agentId: s.agentId || 'default' });
  if (s.mode) params.set('mode', s.mode);
  if (s.person) params.set('scope', s.person);
  return `/v1/memory/search?${params.toString()}`;
}

/**
 * Search a person's memories the way the API does, read one, forget one after a confirmation; the index
 * status below. Memory content is untrusted text: it is only ever rendered as text nodes.
 */
export function MemoryPage({ isAdmin }: { isAdmin: boolean }) {
  const [form, setForm] = useState<Search>({ q: '', agentId: 'default', person: '', mode: '' });
  const [found, setFound] = useState<Found | null>(null);
  const [viewing, setViewing] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const confirmButton = useRef<HTMLButtonElement>(null);
  const fail = (e: unknown) => setError(t('error.generic', { message: messageOf(e) }));

  const search = async (s: Search) => {
    const r = await api<Omit<Found, 'search'>>(searchPath(s));
    setFound({ ...r, search: s });
    setError(null);
  };
  const askToForget = (id: string) => {
    setConfirming(id);
    setStatus(null);
    // After the confirmation renders: the keyboard lands on the decision.
    setTimeout(() => confirmButton.current?.focus(), 0);
  };
  const forget = (id: string) =>
    void api(`/v1/memory/${encodeURIComponent(id)}`, { method: 'DELETE' })
      .then(() => {
        setConfirming(null);
        if (viewing === id) setViewing(null);
        return found ? search(found.search) : undefined;
      })
      .then(() => setStatus(t('memory.forgotten')))
      .catch(fail);

  return (
    <section class="page" aria-labelledby="memory-title">
      <h1 id="memory-title">{t('memory.title')}</h1>
      <form
        class="toolbar memory-search"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setStatus(null);
          void search(form).catch(fail);
        }}
      >
        <label class="inline-field memory-query">
          {t('memory.query')}
          <input type="search" value={form.q} required maxLength={2000} onInput={(e) => setForm({ ...form, q: e.currentTarget.value })} />
        </label>
        <label class="inline-field">
          {t('memory.agent')}
          <input type="text" value={form.agentId} maxLength={100} onInput={(e) => setForm({ ...form, agentId: e.currentTarget.value })} />
        </label>
        {isAdmin && (
          <label class="inline-field">
            {t('memory.person')}
            <input
              type="text"
              value={form.person}
              maxLength={200}
              placeholder={t('memory.personMine')}
              onInput={(e) => setForm({ ...form, person: e.currentTarget.value })}
            />
          </label>
        )}
        <label class="inline-field">
          {t('memory.searchMode')}
          <select value={form.mode} onChange={(e) => setForm({ ...form, mode: e.currentTarget.value as Mode })}>
            <option value="">{t('memory.searchMode.auto')}</option>
            <option value="keyword">{t('memory.searchMode.keyword')}</option>
            <option value="vector">{t('memory.searchMode.vector')}</option>
            <option value="hybrid">{t('memory.searchMode.hybrid')}</option>
          </select>
        </label>
        <button type="submit" class="primary">
          {t('memory.search')}
        </button>
      </form>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <p role="status" class="hint">
        {status ?? ''}
      </p>

      {found && (
        <section aria-labelledby="memory-results-title">
          <h2 id="memory-results-title">{t('memory.results')}</h2>
          <p class="hint">
            {t('memory.searchedAs', { mode: found.mode, agent: found.search.agentId || 'default' })}
            {found.fallback ? ` ${t('memory.fallback', { reason: found.fallback })}` : ''}
          </p>
          {found.results.length === 0 ? (
            <p class="empty">{t('memory.none')}</p>
          ) : (
            <ol class="memory-results">
              {found.results.map((h) => (
                <li key={h.id} class="memory-result">
                  <p class="memory-content">{preview(h.content)}</p>
                  <p class="hint">{t('memory.hitFacts', { source: h.source, when: when(h.createdAt), score: h.score.toFixed(3) })}</p>
                  {confirming === h.id ? (
                    <div
                      class="actions memory-confirm"
                      role="group"
                      aria-label={t('memory.confirmLabel')}
                      onKeyDown={(e) => e.key === 'Escape' && setConfirming(null)}
                    >
                      <span>{t('memory.confirm')}</span>
                      <button type="button" class="danger" ref={confirmButton} onClick={() => forget(h.id)}>
                        {t('memory.forgetForGood')}
                      </button>
                      <button type="button" onClick={() => setConfirming(null)}>
                        {t('memory.cancel')}
                      </button>
                    </div>
                  ) : (
                    <div class="actions">
                      <button
                        type="button"
                        aria-label={t('memory.viewLabel', { text: preview(h.content).slice(0, 60) })}
                        onClick={() => setViewing(h.id)}
                      >
                        {t('memory.view')}
                      </button>
                      <button
                        type="button"
                        class="danger"
                        aria-label={t('memory.forgetLabel', { text: preview(h.content).slice(0, 60) })}
                        onClick={() => askToForget(h.id)}
                      >
                        {t('memory.forget')}
                      </button>
                    </div>
                  )}
                </li>
              ))}
            </ol>
          )}
        </section>
      )}
      {viewing && <MemoryDetail id={viewing} onClose={() => setViewing(null)} />}
      <MemoryStatusPanel canReindex={isAdmin} />
    </section>
  );
}
