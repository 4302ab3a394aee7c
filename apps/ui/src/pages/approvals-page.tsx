import { useEffect, useState } from 'preact/hooks';
import { api, messageOf } from '../api';
import { Countdown } from '../components/countdown';
import { ErrorAlert } from '../components/page-notices';
import { ApprovalCard } from '../chat/approval-card';
import type { ApprovalStatus } from '../chat/transcript';
import { language, t } from '../i18n/i18n';

interface Approval {
  id: string;
  sessionId: string;
  tool: string;
  input: unknown;
  agentId: string;
  channel: string;
  ownerOnly: boolean;
  shapesEveryConversation: boolean;
  reason: string | null;
  /** The rule that made it wait, in words (config keys stay as written). */
  rule: string | null;
  status: ApprovalStatus;
  requestedAt: string;
  expiresAt: string;
  decidedBy: string | null;
}

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString(language()) : '');

/** Pending tool calls with their full input, decided here; and the last decisions with who made them. */
export function ApprovalsPage() {
  const [pending, setPending] = useState<Approval[]>([]);
  const [history, setHistory] = useState<Approval[]>([]);
  const [error, setError] = useState<string | null>(null);
  const load = async () => {
    try {
      const [p, all] = await Promise.all([
        api<{ approvals: Approval[] }>('/v1/approvals?status=pending'),
        api<{ approvals: Approval[] }>('/v1/approvals?limit=50'),
      ]);
      setPending(p.approvals);
      setHistory(all.approvals.filter((a) => a.status !== 'pending'));
      setError(null);
    } catch (e) {
      setError(t('error.generic', { message: messageOf(e) }));
    }
  };
  useEffect(() => void load(), []);
  return (
    <section class="page" aria-labelledby="approvals-title">
      <header class="page-header">
        <h1 id="approvals-title">{t('approvals.title')}</h1>
        <button type="button" onClick={() => void load()}>
          {t('approvals.refresh')}
        </button>
      </header>
      <ErrorAlert error={error} />
      <h2>{t('approvals.pending')}</h2>
      {pending.length === 0 && <p class="empty">{t('approvals.none')}</p>}
      {pending.map((a) => (
        <div key={a.id} class="approval-entry">
          <dl class="facts">
            <dt>{t('approvals.agent')}</dt>
            <dd>{a.agentId}</dd>
            <dt>{t('approvals.channel')}</dt>
            <dd>{a.channel}</dd>
            <dt>{t('approvals.session')}</dt>
            <dd class="mono">{a.sessionId}</dd>
            {a.rule && (
              <>
                <dt>{t('approvals.rule')}</dt>
                <dd class="mono">{a.rule}</dd>
              </>
            )}
            <dt>{t('approvals.expires')}</dt>
            <dd>
              <Countdown until={a.expiresAt} />
            </dd>
          </dl>
          <ApprovalCard approval={{ ...a, approvalId: a.id }} onDecided={() => void load()} />
        </div>
      ))}
      <h2>{t('approvals.history')}</h2>
      {history.length === 0 ? (
        <p class="empty">{t('approvals.noHistory')}</p>
      ) : (
        <div class="table-scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">{t('approvals.requested')}</th>
                <th scope="col">{t('approvals.tool')}</th>
                <th scope="col">{t('approvals.status')}</th>
                <th scope="col">{t('approvals.decidedBy')}</th>
                <th scope="col">{t('approvals.session')}</th>
              </tr>
            </thead>
            <tbody>
              {history.map((a) => (
                <tr key={a.id}>
                  <td>{when(a.requestedAt)}</td>
                  <td>{a.tool}</td>
                  <td>{t(`approval.${a.status as 'approved' | 'denied' | 'expired'}`)}</td>
                  <td>{a.decidedBy ?? ''}</td>
                  <td class="mono">{a.sessionId}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
