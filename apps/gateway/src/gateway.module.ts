import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { ScheduleModule } from '@nestjs/schedule';
import { AgentModule, SessionsModule } from '@nestclaw/agent';
import { ChannelModule } from '@nestclaw/channel';
import { CliBridgeModule } from '@nestclaw/cli-bridge';
import { ConfigModule, ConfigModuleOptions } from '@nestclaw/config';
import { DbModule } from '@nestclaw/db';
import { DoctorModule } from '@nestclaw/doctor';
import { ProviderModule } from '@nestclaw/provider';
import { ObservabilityModule } from '@nestclaw/observability';
import { McpModule } from '@nestclaw/mcp';
import { PluginModule } from '@nestclaw/plugin';
import { PluginsController } from './plugins/plugins.controller';
import { MemoryModule } from '@nestclaw/memory';
import { SecurityModule } from '@nestclaw/security';
import { ApprovalService, ToolModule } from '@nestclaw/tool';
import { ApprovalsController } from './approvals/approvals.controller';
import { toolApprovalDecider } from './approvals/tool-approval.decider';
import { AuditController } from './audit/audit.controller';
import { BearerAuthGuard } from './auth/bearer-auth.guard';
import { TokenRateLimit } from './auth/token-rate-limit';
import { ChatController } from './chat/chat.controller';
import { ChannelsController } from './channels/channels.controller';
import { ClisController } from './clis/clis.controller';
import { ClusterController } from './cluster/cluster.controller';
import { ClusterService } from './cluster/cluster.service';
import { ConversationLogController } from './conversation-log/conversation-log.controller';
import { AllExceptionsFilter } from './errors/all-exceptions.filter';
import { InputHygienePipe } from './http/input-hygiene.pipe';
import { HealthController } from './health/health.controller';
import { MemoryController } from './memory/memory.controller';
import { ReindexController } from './memory/reindex.controller';
import { AgentModelCatalog } from './openai/agent-model.catalog';
import { ChatCompletionsController } from './openai/chat-completions.controller';
import { ModelsController } from './openai/models.controller';
import { OpenApiModule } from './openapi/openapi.module';
import { PairingController } from './pairing/pairing.controller';
import { SecurityConfigController } from './pairing/security-config.controller';
import { ConfigController } from './config/config.controller';
import { ProvidersController } from './providers/providers.controller';
import { SessionsController } from './sessions/sessions.controller';
import { TokensController } from './tokens/tokens.controller';
import { UsageController } from './usage/usage.controller';
import { AgentsController } from './agents/agents.controller';
import { AgentsOverviewService } from './agents/agents-overview.service';
import { AgentWorkspaceService } from './agents/agent-workspace.service';
import { AgentSkillsService } from './agents/agent-skills.service';
import { UiController } from './ui/ui.controller';
import { ChatWsGateway } from './ws/chat.ws-gateway';
import { LiveAnswers } from './ws/live-answers';
import { WsUpgradeAuth } from './ws/ws-upgrade.auth';
import { WebSessionSockets } from './ws/web-session-sockets';
import { WebSessionCookieAuth } from './auth/web-session-cookie.auth';
import { SignInRateLimit } from './web-session/sign-in-rate-limit';
import { WebSessionController } from './web-session/web-session.controller';
import { CronController } from './cron/cron.controller';
import { HeartbeatsController } from './heartbeats/heartbeats.controller';
import { MetricsController } from './observability/metrics.controller';
import { MetricsListener } from './observability/metrics.listener';
import { TelemetryWiring } from './observability/telemetry.wiring';
import { TraceInterceptor } from './observability/trace.interceptor';
import { RetentionRepository } from './operations/retention.repository';
import { RetentionService } from './operations/retention.service';
import { SpendService } from './operations/spend.service';
import { WebhookController } from './webhooks/webhook.controller';
import { GatewayDoctorChecks } from './health/gateway-doctor.checks';
import { PluginChannels } from './plugins/plugin-channels';

/** Composition root of the gateway process: transport lives here, everything else in libs/. */
@Module({})
export class GatewayModule {
  static forRoot(config: ConfigModuleOptions = {}): DynamicModule {
    return {
      module: GatewayModule,
      imports: [
        ConfigModule.forRoot(config),
        ObservabilityModule,
        ScheduleModule.forRoot(),
        DbModule.forRoot({ migrate: true, replica: true }),
        ConfigModule,
        DbModule,
        SecurityModule,
        ProviderModule,
        ToolModule,
        AgentModule,
        SessionsModule,
        DoctorModule,
        // Approval buttons and /approve in chats decide through the tool lib's ApprovalService.
        ChannelModule.register({ imports: [ToolModule], decider: { useFactory: toolApprovalDecider, inject: [ApprovalService] } }),
        MemoryModule,
        McpModule,
        CliBridgeModule,
        PluginModule,
        OpenApiModule,
      ],
      controllers: [
        ChatController,
        ChatCompletionsController,
        ModelsController,
        SessionsController,
        HealthController,
        PairingController,
        TokensController,
        ConversationLogController,
        SecurityConfigController,
        ConfigController,
        ApprovalsController,
        AuditController,
        UsageController,
        AgentsController,
        ProvidersController,
        PluginsController,
        CronController,
        HeartbeatsController,
        MetricsController,
        MemoryController,
        ReindexController,
        ClusterController,
        ChannelsController,
        ClisController,
        WebSessionController,
        UiController,
        WebhookController,
      ],
      providers: [
        { provide: APP_GUARD, useClass: BearerAuthGuard },
        { provide: APP_FILTER, useClass: AllExceptionsFilter },
        { provide: APP_PIPE, useClass: InputHygienePipe },
        { provide: APP_INTERCEPTOR, useClass: TraceInterceptor },
        TelemetryWiring,
        GatewayDoctorChecks,
        PluginChannels,
        SpendService,
        RetentionService,
        RetentionRepository,
        MetricsListener,
        ChatWsGateway,
        LiveAnswers,
        WsUpgradeAuth,
        TokenRateLimit,
        WebSessionCookieAuth,
        WebSessionSockets,
        SignInRateLimit,
        AgentModelCatalog,
        AgentsOverviewService,
        AgentWorkspaceService,
        AgentSkillsService,
        ClusterService,
      ],
    };
  }
}
