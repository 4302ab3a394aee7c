import type { ToolsConfig } from '@nestclaw/config';
import type { FileRequest } from '../executor/tool-executor.port';
import type { ToolRuntime } from '../tool.port';

export const fileRequest = (ctx: ToolRuntime, t: ToolsConfig): FileRequest => ({
  workspace: ctx.workspace,
  timeoutMs: 10_000,
  limits: { memoryMb: t.limits.memory_mb, pids: t.limits.pids, cpus: t.limits.cpus },
});
