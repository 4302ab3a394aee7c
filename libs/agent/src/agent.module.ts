import { Module, OnModuleInit } from '@nestjs/common';
import { ProviderModule } from '@nestclaw/provider';
import { ToolModule, ToolRegistry } from '@nestclaw/tool';
import { AgentService } from './agent.service';
import { CompactionRepository } from './compaction/compaction.repository';
import { CompactionService } from './compaction/compaction.service';
import { Summarizer } from './compaction/summarizer';
import { BootstrapFiles } from './prompt/bootstrap-files';
import { SystemPromptBuilder } from './prompt/system-prompt.builder';
import { SessionRepository } from './session/session.repository';
import { SkillCatalog } from './skills/skill.catalog';
import { SkillReadTool } from './skills/skill-read.tool';
import { ToolStepRunner } from './turn/tool-step.runner';
import { TurnContextService } from './turn/turn-context.service';

@Module({
  imports: [ProviderModule, ToolModule],
  providers: [
    AgentService,
    SessionRepository,
    ToolStepRunner,
    TurnContextService,
    SystemPromptBuilder,
    BootstrapFiles,
    SkillCatalog,
    CompactionService,
    CompactionRepository,
    Summarizer,
  ],
  exports: [AgentService, SessionRepository, CompactionService, SystemPromptBuilder, SkillCatalog, ProviderModule, ToolModule],
})
export class AgentModule implements OnModuleInit {
  constructor(
    private readonly tools: ToolRegistry,
    private readonly skills: SkillCatalog,
  ) {}

  /** skill_read lives with the skills it reads; the registry only knows it as a tool. */
  onModuleInit(): void {
    this.tools.register(new SkillReadTool(this.skills));
  }
}
