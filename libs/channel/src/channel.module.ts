import { DynamicModule, FactoryProvider, Module, ModuleMetadata } from '@nestjs/common';
import { AgentModule } from '@nestclaw/agent';
import { CliBridgeModule } from '@nestclaw/cli-bridge';
import { ConfigModule } from '@nestclaw/config';
import { DbModule } from '@nestclaw/db';
import { MemoryModule } from '@nestclaw/memory';
import { SecurityModule } from '@nestclaw/security';
import { AccessPolicy } from './access/access-policy';
import { ApiChat } from './api/api-chat.service';
import { ApiCliRecovery } from './api/api-cli-recovery';
import { APPROVAL_DECIDER, ApprovalDecider } from './channel.port';
import { ChannelRegistry } from './channel.registry';
import { ChannelOwnership } from './channel-ownership.service';
import { ApprovalCommands } from './commands/approval-commands';
import { ChatCommands } from './commands/chat-commands';
import { SessionCommands } from './commands/session-commands';
import { ConversationLogRepository } from './conversation-log/conversation-log.repository';
import { CronCommands } from './commands/cron-commands';
import { MemoryCommands } from './commands/memory-commands';
import { ConversationLogService } from './conversation-log/conversation-log.service';
import { ApprovalCards } from './delivery/approval-card';
import { JobOutputDelivery } from './delivery/job-output.delivery';
import { OutboundRepository } from './delivery/outbound.repository';
import { SessionChatRepository } from './delivery/session-chat.repository';
import { ReplyDelivery } from './delivery/reply-delivery.service';
import { InboundPipeline } from './inbound-pipeline.service';
import { InboundRepository } from './inbound/inbound.repository';
import { MessageRouter } from './routing/message-router';
import { ChannelSessionRepository } from './session/channel-session.repository';
import { ChannelActivityRepository } from './status/channel-activity.repository';
import { ChannelStatusService } from './status/channel-status.service';
import { ChannelTurnRunner } from './turn/channel-turn.runner';
import { CliTurnRunner } from './turn/cli-turn.runner';
import { RunningTurns } from './turn/running-turns';

/** How approval buttons and /approve are decided: supplied by the composition root (the channel lib never imports the tool lib). */
export interface ChannelApprovals {
  imports: NonNullable<ModuleMetadata['imports']>;
  decider: Omit<FactoryProvider<ApprovalDecider>, 'provide'>;
}

@Module({})
export class ChannelModule {
  static register(approvals: ChannelApprovals): DynamicModule {
    return {
      module: ChannelModule,
      imports: [ConfigModule, DbModule, AgentModule, CliBridgeModule, SecurityModule, MemoryModule, ...approvals.imports],
      providers: [
        ChannelRegistry,
        ChannelOwnership,
        InboundPipeline,
        AccessPolicy,
        MessageRouter,
        InboundRepository,
        ChannelSessionRepository,
        ChatCommands,
        SessionCommands,
        ApprovalCommands,
        MemoryCommands,
        CronCommands,
        ChannelTurnRunner,
        CliTurnRunner,
        RunningTurns,
        ReplyDelivery,
        ApprovalCards,
        OutboundRepository,
        JobOutputDelivery,
        SessionChatRepository,
        ConversationLogService,
        ConversationLogRepository,
        ChannelStatusService,
        ChannelActivityRepository,
        ApiChat,
        ApiCliRecovery,
        { provide: APPROVAL_DECIDER, ...approvals.decider },
      ],
      exports: [ChannelRegistry, ConversationLogService, ChannelStatusService, ApiChat],
    };
  }
}
