import { useEffect, useRef, useState } from 'preact/hooks';
import { api, messageOf } from '../api';
import { ErrorAlert, StatusLine } from '../components/page-notices';
import { language, t } from '../i18n/i18n';
import { MemoryDetail } from '../memory/memory-detail';
import { MemoryStatusPanel } from '../memory/memory-status-panel';

/** A result of GET /v1/memory/search (with a score) or a row of GET /v1/memory (without). */
interface Hit {
  id: string;
  score?: number;
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
  /** Without a query the page lists the newest memories instead of searching. */
  kind: 'search' | 'recent';
  mode?: string;
  fallback?: string;
  results: Hit[];
  /** The cursor of the next page of the newest memories. */
  next: string | null;
}

const RESULTS = 20;
const PREVIEW_CHARS = 300;
const when = (iso: string) => new Date(iso).toLocaleString(language());
const preview = (text: string) => (text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS)}…` : text);

function listPath(s: Search, before: string | undefined): `/v1/memory?${string}` {
  const params = new URLSearchParams({ limit: String(RESULTS), agentId: s.agentId || 'default' });
  if (s.person) params.set('scope', s.person);
  if (before) params.set('before', before);
  return `/v1/memory?${params.toString()}`;
}

function searchPath(s: Search): `/v1/memory/search?${string}` {
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

  /** Searches, or without a query lists the newest memories (`before`: the next page of them). */
  const search = async (s: Search, before?: string) => {
    if (s.q.trim()) {
      const r = await api<{ mode: string; fallback?: string; results: Hit[] }>(searchPath(s));
      setFound({ ...r, search: s, kind: 'search', next: null });
    } else {
      const r = await api<{ memories: Hit[]; next: string | null }>(listPath(s, before));
      const earlier = before && found ? found.results : [];
      setFound({ search: s, kind: 'recent', results: [...earlier, ...r.memories], next: r.next });
    }
    setError(null);
  };
  useEffect(() => void search(form).catch(fail), []);
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
          <input type="search" value={form.q} maxLength={2000} onInput={(e) => setForm({ ...form, q: e.currentTarget.value })} />
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
      <ErrorAlert error={error} />
      <StatusLine status={status} />

      {found && (
        <section aria-labelledby="memory-results-title">
          <h2 id="memory-results-title">{t(found.kind === 'search' ? 'memory.results' : 'memory.recent')}</h2>
          <p class="hint">
            {found.kind === 'search'
              ? t('memory.searchedAs', { mode: found.mode ?? '', agent: found.search.agentId || 'default' })
              : t('memory.recentOf', { agent: found.search.agentId || 'default' })}
            {found.fallback ? ` ${t('memory.fallback', { reason: found.fallback })}` : ''}
          </p>
          {found.results.length === 0 ? (
            <p class="empty">{t(found.kind === 'search' ? 'memory.none' : 'memory.noneYet')}</p>
          ) : (
            <ol class="memory-results">
              {found.results.map((h) => (
                <li key={h.id} class="memory-result">
                  <p class="memory-content">{preview(h.content)}</p>
                  <p class="hint">
                    {h.score === undefined
                      ? t('memory.rowFacts', { source: h.source, when: when(h.createdAt) })
                      : t('memory.hitFacts', { source: h.source, when: when(h.createdAt), score: h.score.toFixed(3) })}
                  </p>
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
          {found.next && (
            <button type="button" onClick={() => void search(found.search, found.next ?? undefined).catch(fail)}>
              {t('memory.more')}
            </button>
          )}
        </section>
      )}
      {viewing && <MemoryDetail id={viewing} onClose={() => setViewing(null)} />}
      <MemoryStatusPanel canReindex={isAdmin} />
    </section>
  );
}
