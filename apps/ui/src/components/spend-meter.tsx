import { t } from '../i18n/i18n';

/** An agent's budget as GET /v1/agents gives it (apps/gateway/src/agents/agents-overview.service.ts). */
export interface AgentBudget {
  dailyUsd: number | null;
  monthlyUsd: number | null;
  warnAt: number;
  enforce: boolean;
}

export const usd = (n: number) => `$${n.toFixed(4)}`;

/**
 * Spend against one period's budget, as a `<dt>`/`<dd>` pair: a meter that turns to a warning at
 * `warn_at` and full at the budget, or the spend alone when the period has no budget. Used by the
 * Agents page and the Usage page's budgets.
 */
export function SpendMeter({ label, spent, budget, warnAt }: { label: string; spent: number; budget: number | null; warnAt: number }) {
  if (budget === null)
    return (
      <>
        <dt>{label}</dt>
        <dd>{t('agents.spentNoBudget', { spent: usd(spent) })}</dd>
      </>
    );
  const share = Math.round((spent / budget) * 100);
  return (
    <>
      <dt>{label}</dt>
      <dd class="agent-spend">
        <meter
          min={0}
          max={budget}
          low={budget * warnAt}
          high={budget * warnAt}
          optimum={0}
          value={Math.min(spent, budget)}
          aria-label={label}
        />
        <span>{t('agents.spentOf', { spent: usd(spent), budget: `$${budget}`, share })}</span>
      </dd>
    </>
  );
}

/** An agent's spend this UTC day and month against its budget, and what a spent budget does: the `<dt>`/`<dd>` pairs both pages show. */
export function BudgetFacts({ budget, spend }: { budget: AgentBudget | null; spend: { dayUsd: number; monthUsd: number } }) {
  return (
    <>
      <SpendMeter label={t('agents.today')} spent={spend.dayUsd} budget={budget?.dailyUsd ?? null} warnAt={budget?.warnAt ?? 1} />
      <SpendMeter label={t('agents.thisMonth')} spent={spend.monthUsd} budget={budget?.monthlyUsd ?? null} warnAt={budget?.warnAt ?? 1} />
      {budget && (
        <>
          <dt>{t('agents.whenSpent')}</dt>
          <dd>{budget.enforce ? t('agents.enforced') : t('agents.warnOnly')}</dd>
        </>
      )}
    </>
  );
}
