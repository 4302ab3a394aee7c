import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { AgentModule } from '@nestclaw/agent';
import { ConfigModule, ConfigModuleOptions } from '@nestclaw/config';
import { DbModule } from '@nestclaw/db';
import { DoctorModule } from '@nestclaw/doctor';
import { SecurityModule } from '@nestclaw/security';
import { BearerAuthGuard } from './auth/bearer-auth.guard';
import { ChatController } from './chat/chat.controller';
import { AllExceptionsFilter } from './errors/all-exceptions.filter';
import { HealthController } from './health/health.controller';
import { ChatCompletionsController } from './openai/chat-completions.controller';
import { SessionsController } from './sessions/sessions.controller';
import { ChatWsGateway } from './ws/chat.ws-gateway';

/** Composition root of the gateway process: transport lives here, everything else in libs/. */
@Module({})
export class GatewayModule {
  static forRoot(config: ConfigModuleOptions = {}): DynamicModule {
    return {
      module: GatewayModule,
      imports: [ConfigModule.forRoot(config), DbModule.forRoot({ migrate: true }), SecurityModule, AgentModule, DoctorModule],
      controllers: [ChatController, ChatCompletionsController, SessionsController, HealthController],
      providers: [{ provide: APP_GUARD, useClass: BearerAuthGuard }, { provide: APP_FILTER, useClass: AllExceptionsFilter }, ChatWsGateway],
    };
  }
}
