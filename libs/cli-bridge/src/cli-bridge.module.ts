import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestclaw/config';
import { DbModule } from '@nestclaw/db';
import { ToolModule } from '@nestclaw/tool';
import { AcpExchangeRunner } from './acp/acp-exchange.runner';
import { AcpPermissions } from './acp/acp-permissions';
import { AcpSessions } from './acp/acp-sessions';
import { CliBindingRepository } from './binding/cli-binding.repository';
import { CliBindings } from './binding/cli-bindings';
import { CliBridge } from './cli-bridge.service';
import { CliCommands } from './cli-commands';
import { CliStatusService } from './cli-status.service';
import { ExchangeRunner } from './exchange/exchange.runner';
import { PromptApprovals } from './exchange/prompt-approvals';
import { CliHooks } from './hooks/cli-hooks';
import { CliSessions } from './session/cli-sessions';
import { TmuxSessions } from './session/tmux-sessions';
import { TmuxDriver } from './tmux/tmux.driver';

@Module({
  imports: [ConfigModule, DbModule, ToolModule],
  providers: [
    CliBridge,
    CliCommands,
    CliStatusService,
    CliBindings,
    CliBindingRepository,
    CliSessions,
    TmuxSessions,
    AcpSessions,
    AcpExchangeRunner,
    AcpPermissions,
    ExchangeRunner,
    CliHooks,
    PromptApprovals,
    TmuxDriver,
  ],
  exports: [CliBridge, CliStatusService, TmuxDriver],
})
export class CliBridgeModule {}
