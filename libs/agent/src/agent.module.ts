import { Module } from '@nestjs/common';
import { MemoryModule } from '@nestclaw/memory';
import { ProviderModule } from '@nestclaw/provider';
import { ToolModule } from '@nestclaw/tool';
import { AgentService } from './agent.service';
import { SessionRepository } from './session/session.repository';
import { ToolStepRunner } from './turn/tool-step.runner';

@Module({
  imports: [ProviderModule, ToolModule, MemoryModule],
  providers: [AgentService, SessionRepository, ToolStepRunner],
  exports: [AgentService, SessionRepository, ProviderModule, ToolModule],
})
export class AgentModule {}
