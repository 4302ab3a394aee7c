import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestclaw/config';
import { DbModule } from '@nestclaw/db';
import { ProviderModule } from '@nestclaw/provider';
import { ToolModule } from '@nestclaw/tool';
import { AgentService } from './agent.service';
import { SessionRepository } from './session/session.repository';
import { ToolStepRunner } from './turn/tool-step.runner';

@Module({
  imports: [ConfigModule, DbModule, ProviderModule, ToolModule],
  providers: [AgentService, SessionRepository, ToolStepRunner],
  exports: [AgentService, SessionRepository],
})
export class AgentModule {}
