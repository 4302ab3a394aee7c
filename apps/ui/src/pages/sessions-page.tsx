import { useEffect, useRef, useState } from 'preact/hooks';
import { api, messageOf } from '../api';
import { ErrorAlert } from '../components/page-notices';
import { TranscriptView } from '../chat/transcript-view';
import { fromStored, Item } from '../chat/transcript';
import { transcriptPage } from '../chat/transcript-pages';
import { continueSession } from '../chat/use-chat';
import { language, t } from '../i18n/i18n';
import { navigate } from '../router';
import { SessionEvent, useSessionEvents } from '../sessions/use-session-events';

interface SessionSummary {
  id: string;
  agentId: string;
  channel: string;
  title: string | null;
  messageCount: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  running: boolean;
  updatedAt: string;
}

interface Filter {
  q: string;
  channel: string;
  agent: string;
}
/** Typing waits this long for the next key before it asks the gateway. */
const SEARCH_DELAY_MS = 300;

const PAGE = 50;
/** The most GET /v1/sessions answers at once: a live re-read of a list paged this far asks for it in one request. */
const MAX_LIMIT = 500;
/** Live re-reads wait at least this long after the last one: a burst of turns costs one query a second. */
const REQUERY_EVERY_MS = 1000;
/**
 * A turn's hold on its session is released with the statement that closes it, except on an error
 * path, a little later: a second read after this long shows it idle.
 */
const SETTLE_MS = 2000;

/**
 * Every channel's sessions, most recent first, paged; a row opens its transcript with the tool calls.
 * `live`: the list follows turns starting and finishing on any session (the WebSocket needs `chat`).
 */
export function SessionsPage({ live }: { live: boolean }) {
  const [sessions, setSessions] = useState<SessionSummary[]>([]);
  const [more, setMore] = useState(false);
  const [open, setOpen] = useState<{ id: string; items: Item[]; earlierBefore: number | null } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const fail = (e: unknown) => setError(t('error.generic', { message: messageOf(e) }));
  const [filter, setFilter] = useState<Filter>({ q: '', channel: '', agent: '' });
  /** The channels and agents seen so far: the filters' choices. */
  const [seen, setSeen] = useState<{ channels: string[]; agents: string[] }>({ channels: [], agents: [] });
  /** Bumped by every read of the first page: an answer overtaken by a later read is dropped. */
  const reads = useRef(0);
  const loadPage = async (before?: string, limit = PAGE) => {
    const read = before ? reads.current : ++reads.current;
    const params = new URLSearchParams({ limit: String(limit) });
    if (before) params.set('before', before);
    if (filter.q.trim()) params.set('q', filter.q.trim());
    if (filter.channel) params.set('channel', filter.channel);
    if (filter.agent) params.set('agent', filter.agent);
    const page = await api<{ sessions: SessionSummary[] }>(`/v1/sessions?${params.toString()}`);
    if (read !== reads.current) return;
    setSessions((now) => (before ? [...now, ...page.sessions] : page.sessions));
    setMore(page.sessions.length === limit);
    setSeen((now) => ({
      channels: [...new Set([...now.channels, ...page.sessions.map((x) => x.channel)])].sort(),
      agents: [...new Set([...now.agents, ...page.sessions.map((x) => x.agentId)])].sort(),
    }));
  };
  const filtered = filter.q.trim() !== '' || filter.channel !== '' || filter.agent !== '';
  const openTranscript = async (id: string) => {
    const page = await transcriptPage(id, 'end');
    setOpen({ id, items: fromStored(page.messages), earlierBefore: page.earlierBefore });
  };
  const loadEarlier = async () => {
    if (!open || open.earlierBefore === null) return;
    const page = await transcriptPage(open.id, open.earlierBefore);
    setOpen((now) =>
      now && now.id === open.id ? { ...now, items: [...fromStored(page.messages), ...now.items], earlierBefore: page.earlierBefore } : now,
    );
  };
  // A link from another page (the Jobs page's heartbeat transcript) names the session to open: /sessions?open=<id>.
  useEffect(() => {
    const id = new URLSearchParams(location.search).get('open');
    if (id) void openTranscript(id).catch(fail);
  }, []);
  // The list follows the search as it is typed (a pause, not every key) and the filters at once.
  useEffect(() => {
    const timer = setTimeout(() => void loadPage().then(() => setError(null), fail), SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [filter]);
  // Live: the gateway's filters, not a copy of them here, decide which sessions a re-read brings.
  const requery = useThrottled(() => void loadPage(undefined, Math.min(MAX_LIMIT, Math.max(PAGE, sessions.length))).catch(fail));
  const settle = useRef<number>();
  useEffect(() => () => window.clearTimeout(settle.current), []);
  const onEvent = (e: SessionEvent) => {
    if (e.kind !== 'turn_started' && e.kind !== 'turn_finished') return;
    // The event says it at once; the re-read brings the counts, the last activity and new sessions.
    setSessions((now) => now.map((s) => (s.id === e.sessionId ? { ...s, running: e.kind === 'turn_started' } : s)));
    requery();
    if (e.kind === 'turn_finished') {
      window.clearTimeout(settle.current);
      settle.current = window.setTimeout(requery, SETTLE_MS);
    }
  };
  useSessionEvents(live, onEvent, requery);
  return (
    <section class="page" aria-labelledby="sessions-title">
      <h1 id="sessions-title">{t('sessions.title')}</h1>
      <form class="session-filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <label class="inline-field">
          {t('sessions.search')}
          <input
            type="search"
            value={filter.q}
            placeholder={t('sessions.searchHint')}
            maxLength={200}
            onInput={(e) => setFilter({ ...filter, q: e.currentTarget.value })}
          />
        </label>
        <label class="inline-field">
          {t('sessions.channel')}
          <select value={filter.channel} onChange={(e) => setFilter({ ...filter, channel: e.currentTarget.value })}>
            <option value="">{t('sessions.anyChannel')}</option>
            {seen.channels.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        </label>
        <label class="inline-field">
          {t('sessions.agent')}
          <select value={filter.agent} onChange={(e) => setFilter({ ...filter, agent: e.currentTarget.value })}>
            <option value="">{t('sessions.anyAgent')}</option>
            {seen.agents.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        </label>
      </form>
      <ErrorAlert error={error} />
      {sessions.length === 0 && !error && <p class="empty">{filtered ? t('sessions.noMatch') : t('sessions.none')}</p>}
      {sessions.length > 0 && (
        <div class="table-scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">{t('sessions.updated')}</th>
                <th scope="col">{t('sessions.state')}</th>
                <th scope="col">{t('sessions.agent')}</th>
                <th scope="col">{t('sessions.channel')}</th>
                <th scope="col">{t('sessions.messages')}</th>
                <th scope="col">{t('sessions.tokens')}</th>
                <th scope="col">{t('sessions.cost')}</th>
              </tr>
            </thead>
            <tbody>
              {sessions.map((s) => (
                <tr key={s.id} aria-selected={open?.id === s.id}>
                  <td>
                    <button type="button" class="link-button" onClick={() => void openTranscript(s.id).catch(fail)}>
                      <span class="visually-hidden">{t('sessions.open', { id: s.title ?? s.id })}</span>
                      <span aria-hidden="true">{new Date(s.updatedAt).toLocaleString(language())}</span>
                    </button>
                  </td>
                  <td>
                    <span class={`state ${s.running ? 'state-running' : ''}`}>
                      {s.running ? t('sessions.running') : t('sessions.idle')}
                    </span>
                  </td>
                  <td>{s.agentId}</td>
                  <td>{s.channel}</td>
                  <td>{s.messageCount}</td>
                  <td>{s.inputTokens + s.outputTokens}</td>
                  <td>${s.costUsd.toFixed(4)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {more && (
        <button type="button" onClick={() => void loadPage(sessions[sessions.length - 1]?.updatedAt).catch(fail)}>
          {t('sessions.more')}
        </button>
      )}
      {open && (
        <section class="transcript-panel" aria-labelledby="transcript-title">
          <header class="page-header">
            <h2 id="transcript-title">{t('sessions.transcript', { id: open.id })}</h2>
            <button
              type="button"
              onClick={() => {
                continueSession(open.id);
                navigate('chat');
              }}
            >
              {t('sessions.continue')}
            </button>
            <button type="button" onClick={() => setOpen(null)}>
              {t('sessions.close')}
            </button>
          </header>
          <TranscriptView
            key={open.id}
            items={open.items}
            onApprovalDecided={() => void openTranscript(open.id).catch(fail)}
            onLoadEarlier={open.earlierBefore === null ? undefined : () => loadEarlier().catch(fail)}
          />
        </section>
      )}
    </section>
  );
}

/**
 * `run` at most once per REQUERY_EVERY_MS: the first call in a quiet spell runs at once, later ones
 * fold into one run when the interval ends. Always the latest render's `run`.
 */
function useThrottled(run: () => void): () => void {
  const latest = useRef(run);
  latest.current = run;
  const state = useRef<{ last: number; timer: number | undefined }>({ last: 0, timer: undefined });
  useEffect(() => () => window.clearTimeout(state.current.timer), []);
  return () => {
    const now = state.current;
    if (now.timer !== undefined) return;
    now.timer = window.setTimeout(
      () => {
        now.timer = undefined;
        now.last = Date.now();
        latest.current();
      },
      Math.max(0, now.last + REQUERY_EVERY_MS - Date.now()),
    );
  };
}
