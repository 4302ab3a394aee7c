import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestclaw/config';
import { DbModule } from '@nestclaw/db';
import { ApprovalRepository } from './approval/approval.repository';
import { ApprovalService } from './approval/approval.service';
import { AuditRepository } from './audit/audit.repository';
import { ExecutorSelector } from './executor/executor.selector';
import { HookRegistry } from './hooks/hook.registry';
import { ToolInvoker } from './tool.invoker';
import { ToolCallRules } from './tool-call.rules';
import { ToolRegistry } from './tool.registry';
import { WorkspaceLocator } from './workspace/workspace.locator';

const providers = [
  ToolRegistry,
  ToolInvoker,
  ToolCallRules,
  ExecutorSelector,
  WorkspaceLocator,
  HookRegistry,
  AuditRepository,
  ApprovalRepository,
  ApprovalService,
];

@Module({ imports: [ConfigModule, DbModule], providers, exports: providers })
export class ToolModule {}
