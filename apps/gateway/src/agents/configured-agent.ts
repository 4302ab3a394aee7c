import { NestclawError } from '@nestclaw/common';
import { AgentConfig, ConfigService } from '@nestclaw/config';

/** The live config of `agentId` (own keys only: `__proto__` is no agent), or a 404 naming the configured ones. */
export function configuredAgent(config: ConfigService, agentId: string): AgentConfig {
  const agents = config.get().agents;
  const agent = Object.hasOwn(agents, agentId) ? agents[agentId] : undefined;
  if (!agent) throw new NestclawError('not_found', `No agent "${agentId}" (configured: ${Object.keys(agents).join(', ')})`);
  return agent;
}
