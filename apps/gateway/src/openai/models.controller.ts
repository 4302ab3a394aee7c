import { Controller, Get, Param } from '@nestjs/common';
import { AgentModelCatalog } from './agent-model.catalog';

/** OpenAI's `GET /v1/models` and `GET /v1/models/{model}`, listing the agents (scope `chat`). */
@Controller('v1/models')
export class ModelsController {
  constructor(private readonly catalog: AgentModelCatalog) {}

  @Get()
  list() {
    return { object: 'list', data: this.catalog.list() };
  }

  /** The OpenAI SDK sends `nestclaw%2F<agentId>`: one parameter, decoded. */
  @Get(':id')
  retrieve(@Param('id') id: string) {
    return this.catalog.find(id);
  }

  /** The same id typed with its slash (`curl …/v1/models/nestclaw/main`). */
  @Get('nestclaw/:agentId')
  retrieveAgent(@Param('agentId') agentId: string) {
    return this.catalog.find(`nestclaw/${agentId}`);
  }
}
