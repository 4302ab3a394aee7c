import { Body, Controller, Get, Param, Put } from '@nestjs/common';
import { z } from 'zod';
import type { Principal } from '@nestclaw/security';
import { CurrentPrincipal } from '../auth/principal.decorator';
import { RequireScope } from '../auth/require-scope.decorator';
import { ZodPipe } from '../http/zod-validation.pipe';
import { AgentsOverviewService } from './agents-overview.service';
import { AgentWorkspaceService, WORKSPACE_FILE_MAX_BYTES } from './agent-workspace.service';

const fileBody = z.object({ content: z.string().max(WORKSPACE_FILE_MAX_BYTES) }).strict();

/**
 * The configured agents with their tools, skills, memory, heartbeat, budget and spend; each agent's
 * prompt report and its workspace files (admin: it shows and shapes the whole setup).
 */
@RequireScope('admin')
@Controller('v1/agents')
export class AgentsController {
  constructor(
    private readonly agents: AgentsOverviewService,
    private readonly workspace: AgentWorkspaceService,
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
}
