import { Controller, Get } from '@nestjs/common';
import { RequireScope } from '../auth/require-scope.decorator';
import { AgentsOverviewService } from './agents-overview.service';

/** The configured agents with their tools, skills, memory, heartbeat, budget and spend (admin: it shows the whole setup). */
@RequireScope('admin')
@Controller('v1/agents')
export class AgentsController {
  constructor(private readonly agents: AgentsOverviewService) {}

  @Get()
  async list() {
    return { agents: await this.agents.list() };
  }
}
