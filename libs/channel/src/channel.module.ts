import { Module } from '@nestjs/common';
import { AgentModule } from '@nestclaw/agent';
import { MemoryModule } from '@nestclaw/memory';
import { SecurityModule } from '@nestclaw/security';
import { ApprovalService } from '@nestclaw/tool';
import { toolApprovalDecider } from './approvals/tool-approval.decider';
import { APPROVAL_DECIDER } from './channel.port';
import { ChannelDispatcher } from './channel-dispatcher.service';
import { ChannelRegistry } from './channel.registry';
import { ConversationLogService } from './conversation-log/conversation-log.service';
import { InboundRepository } from './inbound/inbound.repository';

@Module({
  // AgentModule re-exports ToolModule, whose ApprovalService decides button presses.
  imports: [AgentModule, SecurityModule, MemoryModule],
  providers: [
    ChannelDispatcher,
    ChannelRegistry,
    InboundRepository,
    ConversationLogService,
    { provide: APPROVAL_DECIDER, useFactory: toolApprovalDecider, inject: [ApprovalService] },
  ],
  exports: [ChannelRegistry, ChannelDispatcher, ConversationLogService],
})
export class ChannelModule {}
