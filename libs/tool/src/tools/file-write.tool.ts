import { z } from 'zod';
import type { ToolsConfig } from '@nestclaw/config';
import { resolveWorkspacePath } from '../policy/workspace-paths';
import { conversationFileReason } from '../approval/conversation-files';
import { PrecheckResult, Tool, ToolError, ToolRuntime } from '../tool.port';
import { measureUsage, mib } from '../executor/workspace-quota';
import { fileRequest } from './file-tools.support';

const input = z.object({
  path: z.string().min(1),
  content: z.string(),
  append: z.boolean().optional(),
});

export class FileWriteTool implements Tool<typeof input> {
  readonly name = 'file_write';
  readonly description = 'Write (or append to) a file in the workspace.';
  readonly input = input;
  readonly sideEffects = () => true;
  readonly needsSandbox = true;

  constructor(private readonly config: () => ToolsConfig) {}

  async precheck(i: z.output<typeof input>, ctx?: Pick<ToolRuntime, 'workspace'>): Promise<PrecheckResult> {
    if (!ctx) return {};
    if (ctx.workspace.access !== 'rw')
      throw new ToolError(`the workspace is ${ctx.workspace.access === 'ro' ? 'read-only' : 'not available'}`);
    // The real path: a link inside the workspace to AGENTS.md is a write to AGENTS.md.
    const reason = conversationFileReason(resolveWorkspacePath(ctx.workspace, i.path).relative);
    return reason ? { shapesEveryConversation: reason } : {};
  }

  async execute(ctx: ToolRuntime, i: z.output<typeof input>): Promise<string> {
    await this.precheck(i, ctx);
    const p = resolveWorkspacePath(ctx.workspace, i.path);
    const quota = this.config().limits.workspace_mb * 1024 * 1024;
    const used = measureUsage(ctx.workspace.hostPath, quota);
    const adding = Buffer.byteLength(i.content);
    if (used.over || used.bytes + adding > quota)
      throw new ToolError(
        `the workspace quota of ${this.config().limits.workspace_mb} MiB would be exceeded (${mib(used.bytes)} used, writing ${mib(adding)}): delete files first`,
      );
    await ctx.executor.writeFile(fileRequest(ctx, this.config()), p.relative, i.content, !!i.append);
    return `${i.append ? 'appended' : 'wrote'} ${Buffer.byteLength(i.content)} bytes to ${p.relative}`;
  }
}
