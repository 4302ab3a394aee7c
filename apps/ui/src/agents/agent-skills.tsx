import { useEffect, useState } from 'preact/hooks';
import { api, messageOf } from '../api';
import { ErrorAlert, Listing, StatusLine } from '../components/page-notices';
import { t } from '../i18n/i18n';

/** A skill as GET /v1/agents lists it (apps/gateway/src/agents/agents-overview.service.ts). */
export interface SkillRow {
  name: string;
  source: string;
  available: boolean;
  unavailable?: string;
}

/** GET/PUT /v1/agents/:id/skills/:name (apps/gateway/src/agents/agent-skills.service.ts). */
interface SkillView {
  name: string;
  source: string;
  editable: boolean;
  content: string;
  version: string;
  problem?: string;
}

const sourceLabel = (source: string) =>
  t(`agents.source.${source === 'builtin' ? 'builtin' : source === 'global' ? 'global' : 'workspace'}`);
const skillPath = (agentId: string, name: string) =>
  `/v1/agents/${encodeURIComponent(agentId)}/skills/${encodeURIComponent(name)}` as const;
/** A new skill's starting text: the folder gives the name, the description is what the prompt lists. */
const NEW_SKILL = '---\ndescription: \n---\n\n';

/**
 * One SKILL.md: read-only for a shared or built-in skill; for one in the workspace (or a new one, named
 * here) the whole file, saved against the version read so a concurrent edit is not overwritten.
 */
function SkillEditor({
  agentId,
  name,
  onSaved,
  onClose,
}: {
  agentId: string;
  /** null: a new skill, named in the form. */
  name: string | null;
  onSaved: (name: string) => void;
  onClose: () => void;
}) {
  const [skill, setSkill] = useState<SkillView | undefined>(undefined);
  const [newName, setNewName] = useState('');
  const [text, setText] = useState<string | undefined>(name === null ? NEW_SKILL : undefined);
  const [error, setError] = useState<string | null>(null);
  const fail = (e: unknown) => setError(t('error.generic', { message: messageOf(e) }));
  useEffect(() => {
    if (name === null) return;
    void api<SkillView>(skillPath(agentId, name)).then((s) => {
      setSkill(s);
      setText(s.content);
    }, fail);
  }, []);
  const target = name ?? newName.trim();
  const editable = name === null || skill?.editable === true;
  const id = `skill-${agentId}-${name ?? 'new'}`;
  const save = () =>
    void api<SkillView>(skillPath(agentId, target), {
      method: 'PUT',
      json: { content: text ?? '', ...(skill ? { version: skill.version } : {}) },
    }).then(() => onSaved(target), fail);
  return (
    <div class="config-editor skill-editor">
      <ErrorAlert error={error} />
      {name === null && (
        <>
          <label for={`${id}-name`}>{t('agents.skillName')}</label>
          <input id={`${id}-name`} class="mono" value={newName} onInput={(e) => setNewName(e.currentTarget.value)} />
        </>
      )}
      {skill && !skill.editable && <p class="hint">{t('agents.skillReadOnly', { source: sourceLabel(skill.source) })}</p>}
      {skill?.problem && <p class="hint">{t('agents.skillProblem', { problem: skill.problem })}</p>}
      {text !== undefined && (
        <>
          <label for={id}>{t('agents.skillLabel', { name: target || '…' })}</label>
          <textarea id={id} rows={14} value={text} readOnly={!editable} onInput={(e) => setText(e.currentTarget.value)} />
          <div class="actions">
            {editable && (
              <button type="button" class="primary" disabled={!target} onClick={save}>
                {t('agents.save')}
              </button>
            )}
            <button type="button" onClick={onClose}>
              {editable ? t('agents.cancel') : t('agents.close')}
            </button>
          </div>
        </>
      )}
    </div>
  );
}

/**
 * An agent's skills on its card: where each comes from and why one is unavailable; each SKILL.md shown,
 * those in the agent's workspace edited in place, and new ones created there. `onChanged` reloads the list.
 */
export function AgentSkills({ agentId, skills, onChanged }: { agentId: string; skills: SkillRow[]; onChanged: () => void }) {
  // undefined: no editor open; null: the new-skill form.
  const [open, setOpen] = useState<string | null | undefined>(undefined);
  const [status, setStatus] = useState<string | null>(null);
  const show = (name: string | null) => {
    setOpen(name);
    setStatus(null);
  };
  return (
    <>
      <h3>{t('agents.skills')}</h3>
      <Listing items={skills} empty={t('agents.noSkills')}>
        {(rows) => (
          <ul class="agent-skills">
            {rows.map((k) => (
              <li key={k.name}>
                <span class="mono">{k.name}</span> <span class="hint">({sourceLabel(k.source)})</span>
                {!k.available && <span class="hint"> — {t('agents.unavailable', { reason: k.unavailable ?? '' })}</span>}{' '}
                <button type="button" onClick={() => show(k.name)}>
                  {k.source === 'workspace' ? t('agents.skillEdit', { name: k.name }) : t('agents.skillView', { name: k.name })}
                </button>
              </li>
            ))}
          </ul>
        )}
      </Listing>
      <p>
        <button type="button" onClick={() => show(null)}>
          {t('agents.skillNew')}
        </button>
      </p>
      {open !== undefined && (
        <SkillEditor
          key={open ?? ''}
          agentId={agentId}
          name={open}
          onClose={() => setOpen(undefined)}
          onSaved={(name) => {
            setOpen(undefined);
            setStatus(t('agents.skillSaved', { name }));
            onChanged();
          }}
        />
      )}
      <StatusLine status={status} />
    </>
  );
}
