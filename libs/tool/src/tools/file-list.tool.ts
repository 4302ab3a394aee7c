import { z } from 'zod';
import type { ToolsConfig } from '@nestclaw/config';
import { resolveWorkspacePath } from '../policy/workspace-paths';
import { Tool, ToolRuntime } from '../tool.port';
import { fileRequest } from './file-tools.support';

const input = z.object({ path: z.string().min(1).describe('Directory; "." is the workspace') });

export class FileListTool implements Tool<typeof input> {
  readonly name = 'file_list';
  readonly description = 'List a workspace directory.';
  readonly input = input;
  readonly sideEffects = () => false;
  readonly needsSandbox = true;

  constructor(private readonly config: () => ToolsConfig) {}

  async execute(ctx: ToolRuntime, i: z.output<typeof input>): Promise<string> {
    const p = resolveWorkspacePath(ctx.workspace, i.path);
    const entries = await ctx.executor.listDir(fileRequest(ctx, this.config()), p.relative);
    if (entries.length === 0) return '(empty)';
    return entries
      .map((e) => (e.type === 'dir' ? `${e.name}/` : e.type === 'file' ? `${e.name}\t${e.size}` : `${e.name}\t(${e.type})`))
      .join('\n');
  }
}
