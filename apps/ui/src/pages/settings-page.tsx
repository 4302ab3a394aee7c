import { useEffect, useState } from 'preact/hooks';
import { api, messageOf } from '../api';
import { DataTable } from '../components/data-table';
import { ErrorAlert, Listing, StatusLine } from '../components/page-notices';
import { t } from '../i18n/i18n';
import type { MessageKey } from '../i18n/en';
import { ConfigSection, ConfigSectionEditor } from '../settings/config-section-editor';

/** GET /v1/config. */
interface ConfigView {
  path: string;
  version: string;
  sections: ConfigSection[];
}
/** GET /doctor. */
interface DoctorCheck {
  name: string;
  status: 'ok' | 'warn' | 'fail';
  message: string;
  fix?: string;
}
/** GET /v1/providers?probe=false, the fields shown. */
interface ModelStatus {
  name: string;
  provider: string;
  model: string;
  role: string;
  keySet: boolean;
  keyRequired: boolean;
  breaker: { state: string };
  recent: { calls: number; failures: number };
  lastAuthFailure?: { at: string; message: string };
}

const checkText = (s: DoctorCheck['status']) => t(`config.check.${s}` as MessageKey);

/** One section: whether it applies at once, what is in force, and for a hot section its editor. */
function SectionCard({ section, version, onSaved }: { section: ConfigSection; version: string; onSaved: () => void }) {
  const [editing, setEditing] = useState(false);
  const [status, setStatus] = useState<string | null>(null);
  return (
    <details class="config-section" id={`config-${section.name}`}>
      <summary>
        <span class="mono">{section.name}</span>{' '}
        <span class={`state ${section.hot ? 'state-active' : 'state-paused'}`}>{section.hot ? t('config.hot') : t('config.restart')}</span>
        {section.confirmable && <span class="hint"> {t('config.confirmable')}</span>}
      </summary>
      <h3>{t('config.effective')}</h3>
      <pre class="mono config-effective">{JSON.stringify(section.effective ?? null, null, 2)}</pre>
      {section.hot &&
        (editing ? (
          <ConfigSectionEditor
            section={section}
            version={version}
            onSaved={(changed) => {
              setEditing(false);
              setStatus(t('config.applied', { n: changed }));
              onSaved();
            }}
          />
        ) : (
          <button
            type="button"
            onClick={() => {
              setEditing(true);
              setStatus(null);
            }}
          >
            {t('config.edit', { section: section.name })}
          </button>
        ))}
      <StatusLine status={status} />
    </details>
  );
}

/**
 * Settings and health: the configuration in force (secrets redacted) with the hot sections editable
 * (a diff before anything is saved), the doctor's checks with their fixes, and each model's breaker;
 * a link to Grafana when `observability.grafana_url` is set (read from the config in force).
 */
export function SettingsPage() {
  const [config, setConfig] = useState<ConfigView | undefined>(undefined);
  const [checks, setChecks] = useState<DoctorCheck[] | undefined>(undefined);
  const [models, setModels] = useState<ModelStatus[] | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const fail = (e: unknown) => setError(t('error.generic', { message: messageOf(e) }));

  const loadConfig = () => api<ConfigView>('/v1/config').then(setConfig, fail);
  const loadHealth = () => {
    api<{ checks: DoctorCheck[] }>('/doctor').then((r) => setChecks(r.checks), fail);
    api<{ models: ModelStatus[] }>('/v1/providers?probe=false').then((r) => setModels(r.models), fail);
  };
  useEffect(() => {
    void loadConfig();
    loadHealth();
  }, []);
  // A link to one section (`/settings#config-agents`, from the Jobs page's heartbeats) opens it once it is there.
  const linked = config !== undefined && location.hash.startsWith('#config-') ? location.hash.slice(1) : undefined;
  useEffect(() => {
    const section = linked ? document.getElementById(linked) : null;
    if (!(section instanceof HTMLDetailsElement)) return;
    section.open = true;
    section.scrollIntoView({ block: 'start' });
  }, [linked]);
  const grafana = (config?.sections.find((s) => s.name === 'observability')?.effective as { grafana_url?: string } | undefined)
    ?.grafana_url;

  return (
    <section class="page" aria-labelledby="settings-title">
      <header class="page-header">
        <h1 id="settings-title">{t('config.title')}</h1>
        <button
          type="button"
          onClick={() => {
            void loadConfig();
            loadHealth();
          }}
        >
          {t('config.refresh')}
        </button>
      </header>
      <ErrorAlert error={error} />
      {grafana && (
        <p>
          <a class="external-link" href={grafana} target="_blank" rel="noopener noreferrer">
            {t('config.grafana')}
          </a>{' '}
          <span class="hint">{t('config.grafanaHint')}</span>
        </p>
      )}

      <h2>{t('config.sections')}</h2>
      {config && <p class="hint">{t('config.intro', { path: config.path })}</p>}
      <Listing items={config?.sections} empty={t('config.none')}>
        {(sections) =>
          sections.map((s) => <SectionCard key={s.name} section={s} version={config!.version} onSaved={() => void loadConfig()} />)
        }
      </Listing>

      <h2>{t('config.health')}</h2>
      <Listing items={checks} empty={t('config.noChecks')}>
        {(rows) => (
          <DataTable
            rows={rows}
            rowKey={(c) => c.name}
            columns={[
              { label: t('config.col.check'), cell: (c) => c.name, rowHeader: true },
              { label: t('config.col.status'), cell: (c) => <span class={`state state-check-${c.status}`}>{checkText(c.status)}</span> },
              { label: t('config.col.message'), cell: (c) => c.message },
              { label: t('config.col.fix'), cell: (c) => c.fix ?? '' },
            ]}
          />
        )}
      </Listing>

      <h2>{t('config.providers')}</h2>
      <Listing items={models} empty={t('config.noModels')}>
        {(rows) => (
          <DataTable
            rows={rows}
            rowKey={(m) => m.name}
            columns={[
              { label: t('config.col.model'), cell: (m) => <span class="mono">{m.name}</span>, rowHeader: true },
              { label: t('config.col.provider'), cell: (m) => `${m.provider} · ${m.model}` },
              { label: t('config.col.role'), cell: (m) => m.role },
              { label: t('config.col.breaker'), cell: (m) => <span class="mono">{m.breaker.state}</span> },
              { label: t('config.col.recent'), cell: (m) => t('config.recent', { calls: m.recent.calls, failures: m.recent.failures }) },
              {
                label: t('config.col.key'),
                cell: (m) =>
                  m.lastAuthFailure
                    ? t('config.keyRejected', { message: m.lastAuthFailure.message })
                    : m.keySet
                      ? t('config.keySet')
                      : m.keyRequired
                        ? t('config.keyMissing')
                        : t('config.keyNotNeeded'),
              },
            ]}
          />
        )}
      </Listing>
    </section>
  );
}
