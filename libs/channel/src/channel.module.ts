import { DynamicModule, FactoryProvider, Module, ModuleMetadata } from '@nestjs/common';
import { AgentModule } from '@nestclaw/agent';
import { ConfigModule } from '@nestclaw/config';
import { DbModule } from '@nestclaw/db';
import { SecurityModule } from '@nestclaw/security';
import { APPROVAL_DECIDER, ApprovalDecider } from './channel.port';
import { ChannelDispatcher } from './channel-dispatcher.service';
import { ChannelRegistry } from './channel.registry';
import { ConversationLogService } from './conversation-log/conversation-log.service';
import { InboundRepository } from './inbound/inbound.repository';

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
      imports: [ConfigModule, DbModule, AgentModule, SecurityModule, ...approvals.imports],
      providers: [
        ChannelDispatcher,
        ChannelRegistry,
        InboundRepository,
        ConversationLogService,
        { provide: APPROVAL_DECIDER, ...approvals.decider },
      ],
      exports: [ChannelRegistry, ChannelDispatcher, ConversationLogService],
    };
  }
}
