import { useEffect, useState } from 'preact/hooks';
import { api, messageOf } from '../api';
import { Countdown } from '../components/countdown';
import { ErrorAlert, StatusLine } from '../components/page-notices';
import { t } from '../i18n/i18n';

/** GET /v1/config/security: a security-sensitive change read from the file, waiting for the owner's code. */
interface Pending {
  changed: string[];
  expiresAt: string;
}

/**
 * Allowlists, approvers, group policy and rate limits changed in the config file apply only once the
 * owner types the code the gateway printed on its own terminal (never sent to this page): the change,
 * the time left, the code field, and "check the file now". `onApplied`: the page re-reads what the change affects.
 */
export function SecurityChange({ onApplied }: { onApplied?: () => void } = {}) {
  const [pending, setPending] = useState<Pending | null | undefined>(undefined);
  const [code, setCode] = useState('');
  const [status, setStatus] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const fail = (e: unknown) => setError(t('error.generic', { message: messageOf(e) }));
  const show = (r: { pending: Pending | null }) => {
    setPending(r.pending);
    setError(null);
  };
  useEffect(() => void api<{ pending: Pending | null }>('/v1/config/security').then(show, fail), []);

  const check = () =>
    void api<{ pending: Pending | null }>('/v1/config/security/check', { method: 'POST' }).then((r) => {
      show(r);
      setStatus(r.pending ? null : t('channels.security.unchanged'));
    }, fail);
  const confirm = () =>
    void api<{ applied: string[] }>('/v1/config/security/confirm', { json: { code: code.trim() }, wrongCodeOn401: true }).then((r) => {
      setPending(null);
      setCode('');
      setError(null);
      setStatus(t('channels.security.applied', { keys: r.applied.join(', ') }));
      onApplied?.();
    }, fail);

  return (
    <section aria-labelledby="security-change-title" class="security-change">
      <h2 id="security-change-title">{t('channels.security.title')}</h2>
      {pending === null && <p class="hint">{t('channels.security.none')}</p>}
      {pending && (
        <div class="confirm-group">
          <p>
            {t('channels.security.pending', { keys: pending.changed.join(', ') })} <Countdown until={pending.expiresAt} />
          </p>
          <label class="inline-field">
            {t('channels.security.code')}
            <input
              value={code}
              autocomplete="off"
              spellcheck={false}
              maxLength={20}
              onInput={(e) => setCode(e.currentTarget.value)}
              onKeyDown={(e) => e.key === 'Enter' && code.trim().length >= 4 && confirm()}
            />
          </label>
          <button type="button" class="primary" disabled={code.trim().length < 4} onClick={confirm}>
            {t('channels.security.confirm')}
          </button>
        </div>
      )}
      <button type="button" onClick={check}>
        {t('channels.security.check')}
      </button>
      <ErrorAlert error={error} />
      <StatusLine status={status} />
    </section>
  );
}
