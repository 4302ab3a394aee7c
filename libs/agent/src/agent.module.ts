import { Module, OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { ConfigModule, ConfigService } from '@nestclaw/config';
import { DbModule } from '@nestclaw/db';
import { MemoryModule } from '@nestclaw/memory';
import { ProviderModule } from '@nestclaw/provider';
import { HookRegistry, ToolModule, ToolRegistry } from '@nestclaw/tool';
import { AgentDirectory } from './agent.directory';
import { AgentService } from './agent.service';
import { CompactionRepository } from './compaction/compaction.repository';
import { CompactionService } from './compaction/compaction.service';
import { Summarizer } from './compaction/summarizer';
import { BootstrapFiles } from './prompt/bootstrap-files';
import { SystemPromptBuilder } from './prompt/system-prompt.builder';
import { SessionRepository } from './session/session.repository';
import { TurnRepository } from './session/turn.repository';
import { SkillCatalog } from './skills/skill.catalog';
import { SkillReadTool } from './skills/skill-read.tool';
import { SpawnTool } from './subagents/spawn.tool';
import { SubagentRunRepository } from './subagents/subagent-run.repository';
import { ToolStepRunner } from './turn/tool-step.runner';
import { TurnContextService } from './turn/turn-context.service';
import { TurnLoop } from './turn/turn.loop';
import { TurnRunner } from './turn/turn.runner';
import { InterruptedTurnRepository } from './turn/interrupted-turn.repository';
import { InterruptedTurns } from './turn/interrupted-turns';
import { ResumedTurns } from './turn/resumed-turns';
import { TurnOpener } from './turn/turn.opener';
import { TurnStartBuilder } from './turn/turn-start.builder';
import { CronService } from './scheduler/cron.service';
import { CronTool } from './scheduler/cron.tool';
import { HeartbeatService } from './scheduler/heartbeat.service';
import { JobScheduler } from './scheduler/job.scheduler';
import { ScheduledJobRepository } from './scheduler/scheduled-job.repository';
import { SchedulerClock } from './scheduler/scheduler.clock';
import { HeartbeatRepository } from './scheduler/heartbeat.repository';
import { JobOutputDispatcher } from './scheduler/job-output.dispatcher';
import { JobOutputPort } from './scheduler/job-output.port';
import { JobOutputRepository } from './scheduler/job-output.repository';

@Module({
  imports: [ConfigModule, DbModule, ProviderModule, ToolModule, MemoryModule],
  providers: [
    AgentService,
    AgentDirectory,
    TurnRunner,
    TurnOpener,
    ResumedTurns,
    InterruptedTurns,
    InterruptedTurnRepository,
    TurnStartBuilder,
    TurnLoop,
    SessionRepository,
    TurnRepository,
    ToolStepRunner,
    TurnContextService,
    SystemPromptBuilder,
    BootstrapFiles,
    SkillCatalog,
    CompactionService,
    CompactionRepository,
    Summarizer,
    SchedulerClock,
    ScheduledJobRepository,
    JobScheduler,
    CronService,
    HeartbeatService,
    HeartbeatRepository,
    JobOutputPort,
    JobOutputRepository,
    JobOutputDispatcher,
    SubagentRunRepository,
  ],
  exports: [
    AgentService,
    SessionRepository,
    SystemPromptBuilder,
    SkillCatalog,
    CronService,
    JobScheduler,
    SchedulerClock,
    HeartbeatService,
    JobOutputPort,
  ],
})
export class AgentModule implements OnModuleInit {
  constructor(
    private readonly tools: ToolRegistry,
    private readonly skills: SkillCatalog,
    private readonly config: ConfigService,
    private readonly hooks: HookRegistry,
    private readonly refs: ModuleRef,
  ) {}

  /** Tools that need the agent itself live here; the registry only knows them as tools. */
  onModuleInit(): void {
    this.tools.register(new SkillReadTool(this.skills));
    this.tools.register(
      new SpawnTool(
        this.config,
        () => this.refs.get(AgentService),
        this.hooks,
        () => this.refs.get(SubagentRunRepository),
      ),
    );
    this.tools.register(new CronTool(() => this.refs.get(CronService)));
  }
}
