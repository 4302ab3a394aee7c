import { Module } from '@nestjs/common';
import { ProviderModule } from '@nestclaw/provider';
import { ToolModule } from '@nestclaw/tool';
import { AgentService } from './agent.service';
import { SessionRepository } from './session/session.repository';

@Module({
  imports: [ProviderModule, ToolModule],
  providers: [AgentService, SessionRepository],
  exports: [AgentService, SessionRepository, ProviderModule],
})
export class AgentModule {}
