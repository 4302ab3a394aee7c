import { useEffect, useState } from 'preact/hooks';
import { api, messageOf } from '../api';
import { ErrorAlert } from '../components/page-notices';
import { AgentBudget, SpendMeter } from '../components/spend-meter';
import { t } from '../i18n/i18n';

/** The part of GET /v1/agents this panel shows. */
interface AgentSpend {
  id: string;
  budget: AgentBudget | null;
  spend: { dayUsd: number; monthUsd: number };
}

/**
 * Budgets against spend, per agent: this UTC day's and month's spend from the call ledger against
 * `agents.<id>.budget` (GET /v1/agents, the same figures the budget check uses).
 */
export function BudgetsPanel() {
  const [agents, setAgents] = useState<AgentSpend[] | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  useEffect(
    () =>
      void api<{ agents: AgentSpend[] }>('/v1/agents').then(
        (r) => setAgents(r.agents),
        (e: unknown) => setError(t('error.generic', { message: messageOf(e) })),
      ),
    [],
  );
  return (
    <section aria-labelledby="usage-budgets">
      <h2 id="usage-budgets">{t('usage.budgetsTitle')}</h2>
      <ErrorAlert error={error} />
      {agents?.map((a) => (
        <div key={a.id} class="usage-budget">
          <h3 class="mono">{a.id}</h3>
          <dl class="facts">
            <SpendMeter
              label={t('agents.today')}
              spent={a.spend.dayUsd}
              budget={a.budget?.dailyUsd ?? null}
              warnAt={a.budget?.warnAt ?? 1}
            />
            <SpendMeter
              label={t('agents.thisMonth')}
              spent={a.spend.monthUsd}
              budget={a.budget?.monthlyUsd ?? null}
              warnAt={a.budget?.warnAt ?? 1}
            />
            {a.budget && (
              <>
                <dt>{t('agents.whenSpent')}</dt>
                <dd>{a.budget.enforce ? t('agents.enforced') : t('agents.warnOnly')}</dd>
              </>
            )}
          </dl>
        </div>
      ))}
      <p class="hint">{t('usage.budgets')}</p>
    </section>
  );
}
