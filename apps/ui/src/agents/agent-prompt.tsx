import { useEffect, useState } from 'preact/hooks';
import { api, messageOf } from '../api';
import { DataTable } from '../components/data-table';
import { ErrorAlert, StatusLine } from '../components/page-notices';
import { t } from '../i18n/i18n';

/** GET /v1/agents/:id/prompt (libs/agent/src/prompt/prompt-report.ts). */
interface PromptReport {
  workspace: string;
  files: { name: string; chars: number; includedChars: number; cutChars: number; tokens: number; refused?: string }[];
  sections: { id: string; tokens: number }[];
  toolTokens: number;
  helloTokens: number;
}

const agentPath = <Rest extends string>(agentId: string, rest: Rest) => `/v1/agents/${encodeURIComponent(agentId)}${rest}` as const;

/** One workspace file's editor: its text, Save (the whole file, the next turn uses it) and Cancel. */
function FileEditor({
  agentId,
  name,
  onSaved,
  onClose,
}: {
  agentId: string;
  name: string;
  onSaved: (r: PromptReport) => void;
  onClose: () => void;
}) {
  const [text, setText] = useState<string | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const fail = (e: unknown) => setError(t('error.generic', { message: messageOf(e) }));
  useEffect(() => {
    void api<{ content: string }>(agentPath(agentId, `/files/${encodeURIComponent(name)}`)).then((f) => setText(f.content), fail);
  }, []);
  const id = `file-${agentId}-${name}`;
  return (
    <div class="config-editor">
      <ErrorAlert error={error} />
      {text !== undefined && (
        <>
          <label for={id}>{t('agents.fileLabel', { name })}</label>
          <textarea id={id} rows={14} value={text} onInput={(e) => setText(e.currentTarget.value)} />
          <div class="actions">
            <button
              type="button"
              class="primary"
              onClick={() =>
                void api<PromptReport>(agentPath(agentId, `/files/${encodeURIComponent(name)}`), {
                  method: 'PUT',
                  json: { content: text },
                }).then(onSaved, fail)
              }
            >
              {t('agents.save')}
            </button>
            <button type="button" onClick={onClose}>
              {t('agents.cancel')}
            </button>
          </div>
        </>
      )}
    </div>
  );
}

/**
 * An agent's prompt on its card: each workspace file with its size, what of it the prompt keeps and its
 * tokens, editable in place; the tokens of each prompt layer, the tool definitions and a "hello" request.
 */
export function AgentPrompt({ agentId }: { agentId: string }) {
  const [report, setReport] = useState<PromptReport | undefined>(undefined);
  const [editing, setEditing] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = () =>
    api<PromptReport>(agentPath(agentId, '/prompt')).then(setReport, (e: unknown) =>
      setError(t('error.generic', { message: messageOf(e) })),
    );

  return (
    <details class="agent-prompt" onToggle={(e) => e.currentTarget.open && report === undefined && void load()}>
      <summary>{t('agents.prompt')}</summary>
      <ErrorAlert error={error} />
      {report && (
        <>
          <p class="hint">{t('agents.workspace', { path: report.workspace })}</p>
          <DataTable
            rows={report.files}
            rowKey={(f) => f.name}
            columns={[
              { label: t('agents.col.file'), cell: (f) => <span class="mono">{f.name}</span>, rowHeader: true },
              { label: t('agents.col.chars'), cell: (f) => f.chars },
              {
                label: t('agents.col.inPrompt'),
                cell: (f) =>
                  f.refused
                    ? t('agents.refused', { reason: f.refused })
                    : f.cutChars
                      ? t('agents.cut', { n: f.cutChars })
                      : f.includedChars,
              },
              { label: t('agents.col.tokens'), cell: (f) => f.tokens },
              {
                label: t('agents.col.edit'),
                cell: (f) => (
                  <button
                    type="button"
                    onClick={() => {
                      setEditing(f.name);
                      setStatus(null);
                    }}
                  >
                    {t('agents.editFile', { name: f.name })}
                  </button>
                ),
              },
            ]}
          />
          {editing && (
            <FileEditor
              key={editing}
              agentId={agentId}
              name={editing}
              onClose={() => setEditing(null)}
              onSaved={(r) => {
                setReport(r);
                setStatus(t('agents.saved', { name: editing, tokens: r.helloTokens }));
                setEditing(null);
              }}
            />
          )}
          <StatusLine status={status} />
          <p>
            {t('agents.layers')}: <span class="mono">{report.sections.map((s) => `${s.id} ${s.tokens}`).join(' · ')}</span>
          </p>
          <p>{t('agents.toolTokens', { n: report.toolTokens })}</p>
          <p class="agent-hello">{t('agents.hello', { n: report.helloTokens })}</p>
        </>
      )}
    </details>
  );
}
