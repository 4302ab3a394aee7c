import { Module } from '@nestjs/common';
import { AgentModule } from '@nestclaw/agent';
import { SecurityModule } from '@nestclaw/security';
import { ApprovalService } from '@nestclaw/tool';
import { AccessPolicy } from './access/access-policy';
import { toolApprovalDecider } from './approvals/tool-approval.decider';
import { APPROVAL_DECIDER } from './channel.port';
import { ChannelRegistry } from './channel.registry';
import { ApprovalCommands } from './commands/approval-commands';
import { ChatCommands } from './commands/chat-commands';
import { ConversationLogService } from './conversation-log/conversation-log.service';
import { OutboundRepository } from './delivery/outbound.repository';
import { ReplyDelivery } from './delivery/reply-delivery.service';
import { InboundPipeline } from './inbound-pipeline.service';
import { InboundRepository } from './inbound/inbound.repository';
import { MessageRouter } from './routing/message-router';
import { ChannelTurnRunner } from './turn/channel-turn.runner';
import { RunningTurns } from './turn/running-turns';

@Module({
  // AgentModule re-exports ToolModule, whose ApprovalService decides button presses.
  imports: [AgentModule, SecurityModule],
  providers: [
    ChannelRegistry,
    InboundPipeline,
    AccessPolicy,
    MessageRouter,
    InboundRepository,
    ChatCommands,
    ApprovalCommands,
    ChannelTurnRunner,
    RunningTurns,
    ReplyDelivery,
    OutboundRepository,
    ConversationLogService,
    { provide: APPROVAL_DECIDER, useFactory: toolApprovalDecider, inject: [ApprovalService] },
  ],
  exports: [ChannelRegistry, ConversationLogService],
})
export class ChannelModule {}
