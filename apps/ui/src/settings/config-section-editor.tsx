import { useState } from 'preact/hooks';
import { api, messageOf } from '../api';
import { DataTable } from '../components/data-table';
import { ErrorAlert, StatusLine } from '../components/page-notices';
import { t } from '../i18n/i18n';

/** GET /v1/config, one section (libs/config/src/config-editor.service.ts). */
export interface ConfigSection {
  name: string;
  hot: boolean;
  confirmable: boolean;
  effective: unknown;
  fileYaml: string;
}

/** One changed value, as the preview and the save report it. */
interface Change {
  path: string;
  before?: unknown;
  after?: unknown;
  secretChanged?: boolean;
}
interface Edit {
  changes: Change[];
  version: string;
}

const shown = (v: unknown) => (v === undefined ? t('config.absent') : typeof v === 'string' ? v : JSON.stringify(v));

/**
 * A hot section's editor: the file's YAML in a text box, "Preview changes" shows what would change in
 * force (nothing is written), "Apply" saves it to the config file and the gateway applies it at once.
 * Editing again after a preview hides the preview, so what is applied is always what was shown.
 */
export function ConfigSectionEditor({
  section,
  version,
  onSaved,
}: {
  section: ConfigSection;
  version: string;
  /** Called with how many values changed; the page then reloads what the file holds. */
  onSaved: (changed: number) => void;
}) {
  const [text, setText] = useState(section.fileYaml);
  const [preview, setPreview] = useState<Edit | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const path = `/v1/config/sections/${encodeURIComponent(section.name)}` as const;
  const fail = (e: unknown) => setError(t('error.generic', { message: messageOf(e) }));

  const previewEdit = () =>
    void api<Edit>(`${path}/preview` as const, { json: { yaml: text, version } }).then((edit) => {
      setPreview(edit);
      setError(null);
      setStatus(edit.changes.length ? null : t('config.noChanges'));
    }, fail);
  const apply = () =>
    void api<Edit>(path, { method: 'PUT', json: { yaml: text, version } }).then((edit) => {
      onSaved(edit.changes.length);
    }, fail);

  const id = `config-edit-${section.name}`;
  return (
    <div class="config-editor">
      <label for={id}>{t('config.editLabel', { section: section.name })}</label>
      <textarea
        id={id}
        class="mono"
        rows={Math.min(24, Math.max(6, text.split('\n').length + 1))}
        spellcheck={false}
        value={text}
        onInput={(e) => {
          setText(e.currentTarget.value);
          setPreview(null);
          setStatus(null);
        }}
      />
      <p class="hint">{t('config.editHint')}</p>
      <div class="actions">
        <button type="button" onClick={previewEdit}>
          {t('config.preview')}
        </button>
        <button type="button" class="primary" disabled={!preview || preview.changes.length === 0} onClick={apply}>
          {t('config.apply')}
        </button>
      </div>
      <ErrorAlert error={error} />
      <StatusLine status={status} />
      {preview && preview.changes.length > 0 && (
        <section aria-label={t('config.diffLabel', { section: section.name })} class="config-diff">
          <h3>{t('config.diffTitle')}</h3>
          <DataTable
            rows={preview.changes}
            rowKey={(c) => c.path}
            columns={[
              { label: t('config.col.path'), cell: (c) => <span class="mono">{c.path}</span>, rowHeader: true },
              { label: t('config.col.before'), cell: (c) => <del class="mono">{shown(c.before)}</del> },
              {
                label: t('config.col.after'),
                cell: (c) => <ins class="mono">{c.secretChanged ? t('config.secretChanged') : shown(c.after)}</ins>,
              },
            ]}
          />
        </section>
      )}
    </div>
  );
}
