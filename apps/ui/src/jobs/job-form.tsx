import { useState } from 'preact/hooks';
import { api } from '../api';
import { t } from '../i18n/i18n';

type Kind = 'every' | 'cron' | 'at';

/** The browser's own zone, the default for a cron schedule (the API's default would be UTC). */
const localZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/**
 * Adds a job (POST /v1/cron). The gateway validates the schedule and says what is accepted; the form
 * only shapes the body: `at` from a local date and time, `every` as written ("30m", "2h"), cron with a zone.
 */
export function JobForm({ onAdded, onError }: { onAdded: (job: { message: string }) => void; onError: (e: unknown) => void }) {
  const [kind, setKind] = useState<Kind>('every');
  const [value, setValue] = useState('');
  const [tz, setTz] = useState(localZone);
  const [message, setMessage] = useState('');

  const schedule = () => {
    if (kind === 'every') return { every: value.trim() };
    if (kind === 'cron') return { cron: value.trim(), tz: tz.trim() };
    const at = new Date(value);
    return { at: Number.isNaN(at.getTime()) ? value : at.toISOString() };
  };
  const submit = (e: Event) => {
    e.preventDefault();
    api<{ message: string }>('/v1/cron', { json: { schedule: schedule(), message } }).then((job) => {
      setValue('');
      setMessage('');
      onAdded(job);
    }, onError);
  };

  return (
    <form class="stack job-form" aria-labelledby="job-form-title" onSubmit={submit}>
      <h2 id="job-form-title">{t('jobs.add')}</h2>
      <div class="job-field">
        <label for="job-kind">{t('jobs.kind')}</label>
        <select id="job-kind" value={kind} onChange={(e) => setKind(e.currentTarget.value as Kind)}>
          <option value="every">{t('jobs.kindEvery')}</option>
          <option value="cron">{t('jobs.kindCron')}</option>
          <option value="at">{t('jobs.kindAt')}</option>
        </select>
      </div>
      <div class="job-field">
        <label for="job-when">{kind === 'every' ? t('jobs.interval') : kind === 'cron' ? t('jobs.expression') : t('jobs.when')}</label>
        <input
          id="job-when"
          type={kind === 'at' ? 'datetime-local' : 'text'}
          required
          value={value}
          placeholder={kind === 'every' ? '30m' : kind === 'cron' ? '0 9 * * 1' : undefined}
          onInput={(e) => setValue(e.currentTarget.value)}
        />
      </div>
      {kind === 'cron' && (
        <div class="job-field">
          <label for="job-tz">{t('jobs.timeZone')}</label>
          <input id="job-tz" type="text" required value={tz} onInput={(e) => setTz(e.currentTarget.value)} />
        </div>
      )}
      <div class="job-field">
        <label for="job-message">{t('jobs.message')}</label>
        <textarea id="job-message" required maxLength={4000} rows={2} value={message} onInput={(e) => setMessage(e.currentTarget.value)} />
      </div>
      <button type="submit" class="primary">
        {t('jobs.addButton')}
      </button>
    </form>
  );
}
