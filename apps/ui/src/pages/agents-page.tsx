import { useEffect, useState } from 'preact/hooks';
import { api, messageOf } from '../api';
import { AgentPrompt } from '../agents/agent-prompt';
import { AgentSkills, SkillRow } from '../agents/agent-skills';
import { ErrorAlert, Listing } from '../components/page-notices';
import { AgentBudget, BudgetFacts } from '../components/spend-meter';
import { t } from '../i18n/i18n';

/** GET /v1/agents (apps/gateway/src/agents/agents-overview.service.ts). */
interface Agent {
  id: string;
  model: string | null;
  fallback: string[];
  tools: string[];
  skills: SkillRow[];
  memory: boolean;
  heartbeat: { enabled: boolean; intervalMs: number };
  budget: AgentBudget | null;
  spend: { dayUsd: number; monthUsd: number };
}

const minutes = (ms: number) => Math.round(ms / 60_000);

/** The configured agents: model, tools, skills (workspace ones editable), memory, heartbeat, and spend against budget. */
export function AgentsPage() {
  const [agents, setAgents] = useState<Agent[] | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const load = () =>
    api<{ agents: Agent[] }>('/v1/agents').then(
      (r) => {
        setAgents(r.agents);
        setError(null);
      },
      (e: unknown) => setError(t('error.generic', { message: messageOf(e) })),
    );
  useEffect(() => void load(), []);

  return (
    <section class="page" aria-labelledby="agents-title">
      <header class="page-header">
        <h1 id="agents-title">{t('agents.title')}</h1>
        <button type="button" onClick={() => void load()}>
          {t('agents.refresh')}
        </button>
      </header>
      <ErrorAlert error={error} />
      <Listing items={agents} empty={t('agents.none')}>
        {(rows) =>
          rows.map((a) => (
            <section key={a.id} class="agent-card" aria-labelledby={`agent-${a.id}`}>
              <h2 id={`agent-${a.id}`}>{a.id}</h2>
              <dl class="facts">
                <dt>{t('agents.model')}</dt>
                <dd class="mono">{a.model ?? t('agents.modelUnset')}</dd>
                <dt>{t('agents.fallback')}</dt>
                <dd class="mono">{a.fallback.length ? a.fallback.join(', ') : t('agents.noneSet')}</dd>
                <dt>{t('agents.tools')}</dt>
                <dd class="mono">{a.tools.length ? a.tools.join(', ') : t('agents.noneSet')}</dd>
                <dt>{t('agents.memory')}</dt>
                <dd>{a.memory ? t('agents.on') : t('agents.off')}</dd>
                <dt>{t('agents.heartbeat')}</dt>
                <dd>{a.heartbeat.enabled ? t('agents.heartbeatEvery', { n: minutes(a.heartbeat.intervalMs) }) : t('agents.off')}</dd>
                <BudgetFacts budget={a.budget} spend={a.spend} />
              </dl>
              <AgentSkills agentId={a.id} skills={a.skills} onChanged={() => void load()} />
              <AgentPrompt agentId={a.id} />
            </section>
          ))
        }
      </Listing>
    </section>
  );
}
