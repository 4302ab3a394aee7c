import { useState } from 'preact/hooks';
import { messageOf } from '../api';
import { signIn, SignedIn } from '../auth';
import { t } from '../i18n/i18n';

/**
 * The owner token, a paired token or a login code, traded once for the HttpOnly session cookie.
 * The field is a password input, cleared after the exchange; nothing is stored by the page.
 */
export function SignInPage({ onSignedIn, initialError }: { onSignedIn: (s: SignedIn) => void; initialError: string | null }) {
  const [secret, setSecret] = useState('');
  const [kind, setKind] = useState<'token' | 'code'>('token');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // The login link's failure (from the app, possibly after this form first rendered) until the form is used.
  const [attempted, setAttempted] = useState(false);
  const shown = attempted ? error : initialError;
  const submit = async (e: Event) => {
    e.preventDefault();
    const value = secret.trim();
    if (!value) return;
    setBusy(true);
    setAttempted(true);
    setError(null);
    try {
      const session = await signIn(kind === 'token' ? { token: value } : { code: value });
      setSecret('');
      onSignedIn(session);
    } catch (err) {
      setError(t('signIn.failed', { message: messageOf(err) }));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="page sign-in" aria-labelledby="sign-in-title">
      <h1 id="sign-in-title">{t('signIn.title')}</h1>
      <p>{t('signIn.intro')}</p>
      <form onSubmit={(e) => void submit(e)} class="stack">
        <fieldset class="radios">
          <legend>{t('signIn.kind')}</legend>
          <label>
            <input type="radio" name="kind" value="token" checked={kind === 'token'} onChange={() => setKind('token')} />
            {t('signIn.kindToken')}
          </label>
          <label>
            <input type="radio" name="kind" value="code" checked={kind === 'code'} onChange={() => setKind('code')} />
            {t('signIn.kindCode')}
          </label>
        </fieldset>
        <label for="sign-in-secret">{t('signIn.secret')}</label>
        <input
          id="sign-in-secret"
          type="password"
          autoComplete="off"
          spellcheck={false}
          required
          value={secret}
          onInput={(e) => setSecret(e.currentTarget.value)}
        />
        <button type="submit" class="primary" disabled={busy}>
          {busy ? t('signIn.working') : t('signIn.submit')}
        </button>
        {shown && (
          <p class="error" role="alert">
            {shown}
          </p>
        )}
      </form>
    </section>
  );
}
