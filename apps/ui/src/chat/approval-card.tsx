import { useState } from 'preact/hooks';
import { api, messageOf } from '../api';
import { t } from '../i18n/i18n';
import type { MessageKey } from '../i18n/en';
import { BoundedText, inputText } from './bounded-text';
import type { ApprovalStatus } from './transcript';

export interface ApprovalView {
  approvalId: string;
  tool: string;
  input: unknown;
  ownerOnly: boolean;
  shapesEveryConversation: boolean;
  reason: string | null;
  status: ApprovalStatus;
  decidedBy?: string | null;
}

const STATUS_KEYS: Record<Exclude<ApprovalStatus, 'pending'>, MessageKey> = {
  approved: 'approval.approved',
  denied: 'approval.denied',
  expired: 'approval.expired',
};

/**
 * A paused tool call with everything it would do (the full input, never just the tool's name) and
 * Approve / Deny. Deciding posts to /v1/approvals/:id; the paused turn resumes on the gateway.
 */
export function ApprovalCard({ approval, onDecided }: { approval: ApprovalView; onDecided: (status: ApprovalStatus) => void }) {
  const [busy, setBusy] = useState(false);
  const [remember, setRemember] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const decide = async (decision: 'approve' | 'deny') => {
    setBusy(true);
    setError(null);
    try {
      const { approval: decided } = await api<{ approval: { status: ApprovalStatus } }>(`/v1/approvals/${approval.approvalId}`, {
        json: { decision, ...(decision === 'approve' && remember ? { remember: true } : {}) },
      });
      onDecided(decided.status);
    } catch (e) {
      setError(t('error.generic', { message: messageOf(e) }));
    } finally {
      setBusy(false);
    }
  };
  const titleId = `approval-${approval.approvalId}`;
  return (
    <section class={`card approval-card status-${approval.status}`} aria-labelledby={titleId}>
      <h3 id={titleId} class="card-title">
        {t('approval.title', { tool: approval.tool })}
      </h3>
      {approval.shapesEveryConversation && <p class="warning">{approval.reason ?? t('approval.shapes')}</p>}
      {approval.ownerOnly && <p class="warning">{t('approval.ownerOnly')}</p>}
      <BoundedText text={inputText(approval.input)} label={t('tool.input')} />
      {approval.status === 'pending' ? (
        <div class="actions">
          <label class="checkbox">
            <input type="checkbox" checked={remember} onChange={(e) => setRemember(e.currentTarget.checked)} />
            {t('approval.remember')}
          </label>
          <button type="button" class="primary" disabled={busy} onClick={() => void decide('approve')}>
            {t('approval.approve')}
          </button>
          <button type="button" class="danger" disabled={busy} onClick={() => void decide('deny')}>
            {t('approval.deny')}
          </button>
        </div>
      ) : (
        <p class="decided" role="status">
          {approval.decidedBy
            ? t('approval.decidedBy', { status: t(STATUS_KEYS[approval.status]), who: approval.decidedBy })
            : t(STATUS_KEYS[approval.status])}
        </p>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
