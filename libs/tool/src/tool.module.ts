import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestclaw/config';
import { DbModule } from '@nestclaw/db';
import { ApprovalRepository } from './approval/approval.repository';
import { ApprovalService } from './approval/approval.service';
import { AuditRepository } from './audit/audit.repository';
import { AuditService } from './audit/audit.service';
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
  AuditService,
  ApprovalRepository,
  ApprovalService,
];

/** Everything but the two repositories is exported: other libs and the apps go through the services. */
const exported = providers.filter((p) => p !== AuditRepository && p !== ApprovalRepository);

@Module({ imports: [ConfigModule, DbModule], providers, exports: exported })
export class ToolModule {}
