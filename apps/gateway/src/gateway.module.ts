import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { AgentModule } from '@nestclaw/agent';
import { ChannelModule } from '@nestclaw/channel';
import { ConfigModule, ConfigModuleOptions } from '@nestclaw/config';
import { DbModule } from '@nestclaw/db';
import { DoctorModule } from '@nestclaw/doctor';
import { MemoryModule } from '@nestclaw/memory';
import { SecurityModule } from '@nestclaw/security';
import { ApprovalsController } from './approvals/approvals.controller';
import { AuditController } from './audit/audit.controller';
import { BearerAuthGuard } from './auth/bearer-auth.guard';
import { TokenRateLimit } from './auth/token-rate-limit';
import { ChatController } from './chat/chat.controller';
import { ConversationLogController } from './conversation-log/conversation-log.controller';
import { AllExceptionsFilter } from './errors/all-exceptions.filter';
import { HealthController } from './health/health.controller';
import { MemoryController } from './memory/memory.controller';
import { ReindexController } from './memory/reindex.controller';
import { ChatCompletionsController } from './openai/chat-completions.controller';
import { PairingController } from './pairing/pairing.controller';
import { SecurityConfigController } from './pairing/security-config.controller';
import { ProvidersController } from './providers/providers.controller';
import { SessionsController } from './sessions/sessions.controller';
import { TokensController } from './tokens/tokens.controller';
import { UsageController } from './usage/usage.controller';
import { ChatWsGateway } from './ws/chat.ws-gateway';

/** Composition root of the gateway process: transport lives here, everything else in libs/. */
@Module({})
export class GatewayModule {
  static forRoot(config: ConfigModuleOptions = {}): DynamicModule {
    return {
      module: GatewayModule,
      imports: [
        ConfigModule.forRoot(config),
        DbModule.forRoot({ migrate: true }),
        SecurityModule,
        AgentModule,
        DoctorModule,
        ChannelModule,
        MemoryModule,
      ],
      controllers: [
        ChatController,
        ChatCompletionsController,
        SessionsController,
        HealthController,
        PairingController,
        TokensController,
        ConversationLogController,
        SecurityConfigController,
        ApprovalsController,
        AuditController,
        UsageController,
        ProvidersController,
        MemoryController,
        ReindexController,
      ],
      providers: [
        { provide: APP_GUARD, useClass: BearerAuthGuard },
        { provide: APP_FILTER, useClass: AllExceptionsFilter },
        ChatWsGateway,
        TokenRateLimit,
      ],
    };
  }
}
