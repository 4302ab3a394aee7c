import { useEffect, useState } from 'preact/hooks';
import { messageOf, whenUnauthorized } from './api';
import { currentSession, hasScope, signIn, SignedIn, signOut, takeLoginCode } from './auth';
import { LANGUAGES, Language, setLanguage, t, useLanguage } from './i18n/i18n';
import type { MessageKey } from './i18n/en';
import { AgentsPage } from './pages/agents-page';
import { ApprovalsPage } from './pages/approvals-page';
import { ChannelsPage } from './pages/channels-page';
import { ChatPage } from './pages/chat-page';
import { JobsPage } from './pages/jobs-page';
import { MemoryPage } from './pages/memory-page';
import { SessionsPage } from './pages/sessions-page';
import { SettingsPage } from './pages/settings-page';
import { SignInPage } from './pages/sign-in-page';
import { UsagePage } from './pages/usage-page';
import { navigate, Route, ROUTE_PATHS, useRoute } from './router';
import { Theme, useTheme } from './theme';

/** Each page and the scope the session needs for it: a page the session cannot use is not offered. */
const PAGES: { route: Route; label: MessageKey; scope: string }[] = [
  { route: 'chat', label: 'nav.chat', scope: 'chat' },
  { route: 'approvals', label: 'nav.approvals', scope: 'approve' },
  { route: 'sessions', label: 'nav.sessions', scope: 'admin' },
  { route: 'channels', label: 'nav.channels', scope: 'admin' },
  { route: 'usage', label: 'nav.usage', scope: 'admin' },
  { route: 'memory', label: 'nav.memory', scope: 'chat' },
  { route: 'jobs', label: 'nav.jobs', scope: 'chat' },
  { route: 'agents', label: 'nav.agents', scope: 'admin' },
  { route: 'settings', label: 'nav.settings', scope: 'admin' },
];

function Settings() {
  const lang = useLanguage();
  const [theme, setTheme] = useTheme();
  return (
    <div class="settings">
      <label class="inline-field">
        {t('settings.language')}
        <select value={lang} onChange={(e) => setLanguage(e.currentTarget.value as Language)}>
          {LANGUAGES.map((l) => (
            <option key={l.id} value={l.id} lang={l.id}>
              {l.label}
            </option>
          ))}
        </select>
      </label>
      <label class="inline-field">
        {t('settings.theme')}
        <select value={theme} onChange={(e) => setTheme(e.currentTarget.value as Theme)}>
          <option value="system">{t('theme.system')}</option>
          <option value="light">{t('theme.light')}</option>
          <option value="dark">{t('theme.dark')}</option>
        </select>
      </label>
    </div>
  );
}

function Page({ route, session }: { route: Route; session: SignedIn }) {
  const page = PAGES.find((p) => p.route === route)!;
  if (!hasScope(session, page.scope)) return <p class="notice error">{t('error.forbidden')}</p>;
  if (route === 'approvals') return <ApprovalsPage />;
  if (route === 'sessions') return <SessionsPage live={hasScope(session, 'chat')} />;
  if (route === 'channels') return <ChannelsPage />;
  if (route === 'usage') return <UsagePage />;
  if (route === 'jobs') return <JobsPage isAdmin={hasScope(session, 'admin')} />;
  if (route === 'agents') return <AgentsPage />;
  if (route === 'settings') return <SettingsPage />;
  if (route === 'memory') return <MemoryPage isAdmin={hasScope(session, 'admin')} />;
  return <ChatPage canWatch={hasScope(session, 'admin')} />;
}

export function App() {
  useLanguage();
  const route = useRoute();
  const [session, setSession] = useState<SignedIn | null | undefined>(undefined);
  const [signInError, setSignInError] = useState<string | null>(null);

  useEffect(() => {
    whenUnauthorized(() => setSession(null));
    const code = takeLoginCode();
    const first = code
      ? signIn({ code }).catch((e: unknown) => {
          setSignInError(t('signIn.failed', { message: messageOf(e) }));
          return null;
        })
      : currentSession();
    first.then(setSession, (e: unknown) => {
      setSignInError(t('error.generic', { message: messageOf(e) }));
      setSession(null);
    });
  }, []);

  return (
    <>
      <a class="skip-link" href="#main">
        {t('app.skip')}
      </a>
      <header class="app-header">
        <span class="brand">{t('app.title')}</span>
        {session && (
          <nav aria-label={t('nav.label')}>
            <ul>
              {PAGES.filter((p) => hasScope(session, p.scope)).map((p) => (
                <li key={p.route}>
                  <a
                    href={ROUTE_PATHS[p.route]}
                    aria-current={route === p.route ? 'page' : undefined}
                    onClick={(e) => {
                      e.preventDefault();
                      navigate(p.route);
                    }}
                  >
                    {t(p.label)}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
        )}
        <Settings />
        {session && (
          <button type="button" onClick={() => void signOut().finally(() => setSession(null))}>
            {t('nav.signOut')}
          </button>
        )}
      </header>
      <main id="main" tabIndex={-1}>
        {session === undefined ? (
          <p role="status">{t('app.loading')}</p>
        ) : session === null ? (
          <SignInPage onSignedIn={setSession} initialError={signInError} />
        ) : (
          <Page route={route} session={session} />
        )}
      </main>
    </>
  );
}
