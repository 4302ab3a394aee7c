import { Body, Controller, Get, Param, Put } from '@nestjs/common';
import { z } from 'zod';
import type { Principal } from '@nestclaw/security';
import { CurrentPrincipal } from '../auth/principal.decorator';
import { RequireScope } from '../auth/require-scope.decorator';
import { ZodPipe } from '../http/zod-validation.pipe';
import { AgentsOverviewService } from './agents-overview.service';
import { AgentSkillsService } from './agent-skills.service';
import { AgentWorkspaceService, WORKSPACE_FILE_MAX_BYTES } from './agent-workspace.service';

const fileBody = z.object({ content: z.string().max(WORKSPACE_FILE_MAX_BYTES) }).strict();
// No length cap on content here: the service answers an oversized SKILL.md with 413 and the catalog's limit.
const skillBody = z
  .object({
    content: z.string(),
    /** `version` from GET …/skills/:name; left out to create a new skill (refused when one exists). */
    version: z.string().min(1).max(64).optional(),
  })
  .strict();

/**
 * The configured agents with their tools, skills, memory, heartbeat, budget and spend; each agent's
 * prompt report, its workspace files and its skills (admin: it shows and shapes the whole setup).
 */
@RequireScope('admin')
@Controller('v1/agents')
export class AgentsController {
  constructor(
    private readonly agents: AgentsOverviewService,
    private readonly workspace: AgentWorkspaceService,
    private readonly skills: AgentSkillsService,
  ) {}

  @Get()
  async list() {
    return { agents: await this.agents.list() };
  }

  /** What each workspace file and prompt layer costs in tokens (`nestclaw agent files`). */
  @Get(':agentId/prompt')
  prompt(@Param('agentId') agentId: string) {
    return this.workspace.report(agentId);
  }

  @Get(':agentId/files/:name')
  file(@Param('agentId') agentId: string, @Param('name') name: string) {
    return this.workspace.read(agentId, name);
  }

  /** Replaces a bootstrap file (whole); the next turn's prompt has it. Answers the new prompt report. */
  @Put(':agentId/files/:name')
  writeFile(
    @Param('agentId') agentId: string,
    @Param('name') name: string,
    @Body(new ZodPipe(fileBody)) body: z.output<typeof fileBody>,
    @CurrentPrincipal() who: Principal,
  ) {
    return this.workspace.write(agentId, name, body.content, who.id);
  }

  @Get(':agentId/skills/:name')
  skill(@Param('agentId') agentId: string, @Param('name') name: string) {
    return this.skills.read(agentId, name);
  }

  /** Creates or replaces a skill in the agent's workspace (whole); the next turn's prompt lists it. */
  @Put(':agentId/skills/:name')
  writeSkill(
    @Param('agentId') agentId: string,
    @Param('name') name: string,
    @Body(new ZodPipe(skillBody)) body: z.output<typeof skillBody>,
    @CurrentPrincipal() who: Principal,
  ) {
    return this.skills.write(agentId, name, body.content, body.version, who.id);
  }
}
