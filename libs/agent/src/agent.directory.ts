import { Injectable } from '@nestjs/common';
import { NestclawError } from '@nestclaw/common';
import { AgentConfig, ConfigService } from '@nestclaw/config';
import { ReliableProvider, providerNotConfigured, SpendBudget } from '@nestclaw/provider';

/** The configured agents: lookup by id, and whether one can run now. */
@Injectable()
export class AgentDirectory {
  constructor(
    private readonly config: ConfigService,
    private readonly provider: ReliableProvider,
    private readonly spend: SpendBudget,
  ) {}

  get(agentId: string): AgentConfig {
    // Own keys only: an agentId such as "__proto__" or "constructor" must be unknown, not Object's.
    const agents = this.config.get().agents;
    const agent = Object.hasOwn(agents, agentId) ? agents[agentId] : undefined;
    if (!agent) {
      throw new NestclawError(
        'invalid_request',
        `Unknown agentId "${agentId}"; configured agents: ${Object.keys(this.config.get().agents).join(', ')}`,
      );
    }
    return agent;
  }

  /** The agent, once it is known to have a model provider and budget left for a turn. */
  runnable(agentId: string): AgentConfig {
    const agent = this.get(agentId);
    if (!this.provider.isConfigured({ primary: agent.model, fallback: agent.fallback })) throw providerNotConfigured();
    this.spend.assertWithin(agentId);
    return agent;
  }
}
