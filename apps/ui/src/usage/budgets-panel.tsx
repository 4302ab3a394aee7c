import { useEffect, useState } from 'preact/hooks';
import { api, messageOf } from '../api';
import { ErrorAlert } from '../components/page-notices';
import { AgentBudget, BudgetFacts } from '../components/spend-meter';
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
            <BudgetFacts budget={a.budget} spend={a.spend} />
          </dl>
        </div>
      ))}
      <p class="hint">{t('usage.budgets')}</p>
    </section>
  );
}
