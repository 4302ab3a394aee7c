import { Inject, Module, OnModuleInit } from '@nestjs/common';
import { ConfigModule } from '@nestclaw/config';
import { DbModule } from '@nestclaw/db';
import { MemoryModule } from '@nestclaw/memory';
import { ProviderModule } from '@nestclaw/provider';
import { Tool, ToolModule, ToolRegistry } from '@nestclaw/tool';
import { AgentDirectory } from './agent.directory';
import { AgentService } from './agent.service';
import { TurnControl } from './control/turn-control';
import { CompactionRepository } from './compaction/compaction.repository';
import { CompactionService } from './compaction/compaction.service';
import { Summarizer } from './compaction/summarizer';
import { BootstrapFiles } from './prompt/bootstrap-files';
import { SystemPromptBuilder } from './prompt/system-prompt.builder';
import { SessionRepository } from './session/session.repository';
import { SessionHoldRepository } from './session/session-hold.repository';
import { TurnRepository } from './session/turn.repository';
import { ExternalTurns } from './turn/external-turn.recorder';
import { SkillCatalog } from './skills/skill.catalog';
import { SkillReadTool } from './skills/skill-read.tool';
import { SpawnTool } from './subagents/spawn.tool';
import { SubagentRunRepository } from './subagents/subagent-run.repository';
import { AdmitStage } from './turn/admit.stage';
import { CloseStage } from './turn/close.stage';
import { InterruptedTurnRepository } from './turn/interrupted-turn.repository';
import { InterruptedTurns } from './turn/interrupted-turns';
import { LoopStage } from './turn/loop.stage';
import { OpenStage } from './turn/open.stage';
import { PrepareStage } from './turn/prepare.stage';
import { SessionHold } from './turn/session-hold';
import { ToolStepRunner } from './turn/tool-step.runner';
import { CronService } from './scheduler/cron.service';
import { CronTool } from './scheduler/cron.tool';
import { HeartbeatService } from './scheduler/heartbeat.service';
import { HeartbeatStatusService } from './scheduler/heartbeat-status.service';
import { JobScheduler } from './scheduler/job.scheduler';
import { ScheduledJobRepository } from './scheduler/scheduled-job.repository';
import { SchedulerClock } from './scheduler/scheduler.clock';
import { HeartbeatRepository } from './scheduler/heartbeat.repository';
import { JobOutputDispatcher } from './scheduler/job-output.dispatcher';
import { JobOutputPort } from './scheduler/job-output.port';
import { JobOutputRepository } from './scheduler/job-output.repository';
import { WebhookIntake } from './webhook/webhook-intake.service';
import { WebhookRepository } from './webhook/webhook.repository';
import { WebhookTurnRunner } from './webhook/webhook-turn.runner';

/** The tools this lib adds: built by DI like any provider, registered with the ToolRegistry (which depends on no tool) once the graph is built. */
const AGENT_TOOLS = Symbol('AGENT_TOOLS');
const agentTools = [SkillReadTool, SpawnTool, CronTool];

@Module({
  imports: [ConfigModule, DbModule, ProviderModule, ToolModule, MemoryModule],
  providers: [
    AgentService,
    TurnControl,
    AgentDirectory,
    AdmitStage,
    OpenStage,
    InterruptedTurns,
    InterruptedTurnRepository,
    PrepareStage,
    LoopStage,
    ToolStepRunner,
    CloseStage,
    SessionRepository,
    TurnRepository,
    ExternalTurns,
    SessionHoldRepository,
    SessionHold,
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
    HeartbeatStatusService,
    HeartbeatRepository,
    JobOutputPort,
    JobOutputRepository,
    JobOutputDispatcher,
    SubagentRunRepository,
    WebhookIntake,
    WebhookRepository,
    WebhookTurnRunner,
    ...agentTools,
    { provide: AGENT_TOOLS, useFactory: (...tools: Tool[]) => tools, inject: agentTools },
  ],
  exports: [
    AgentService,
    ExternalTurns,
    SessionRepository,
    SystemPromptBuilder,
    BootstrapFiles,
    SkillCatalog,
    CronService,
    JobScheduler,
    SchedulerClock,
    HeartbeatService,
    HeartbeatStatusService,
    JobOutputPort,
    WebhookIntake,
    WebhookTurnRunner,
  ],
})
export class AgentModule implements OnModuleInit {
  constructor(
    private readonly registry: ToolRegistry,
    @Inject(AGENT_TOOLS) private readonly tools: Tool[],
  ) {}

  onModuleInit(): void {
    for (const tool of this.tools) this.registry.register(tool);
  }
}
