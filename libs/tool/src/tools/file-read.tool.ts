import { z } from 'zod';
import type { ToolsConfig } from '@nestclaw/config';
import { resolveWorkspacePath } from '../policy/workspace-paths';
import { Tool, ToolRuntime } from '../tool.port';
import { fileRequest } from './file-tools.support';

const MAX_READ_BYTES = 1 << 20;

const input = z.object({
  path: z.string().min(1),
  offset: z.number().int().min(0).optional().describe('First line (0-based)'),
  limit: z.number().int().positive().optional().describe('Max lines'),
});

export class FileReadTool implements Tool<typeof input> {
  readonly name = 'file_read';
  readonly description = 'Read a text file from the workspace.';
  readonly input = input;
  readonly sideEffects = () => false;
  readonly needsSandbox = true;

  constructor(private readonly config: () => ToolsConfig) {}

  async execute(ctx: ToolRuntime, i: z.output<typeof input>): Promise<string> {
    const p = resolveWorkspacePath(ctx.workspace, i.path);
    const text = await ctx.executor.readFile(fileRequest(ctx, this.config()), p.relative, MAX_READ_BYTES);
    if (i.offset === undefined && i.limit === undefined) return text;
    const lines = text.split('\n');
    const from = i.offset ?? 0;
    const slice = lines.slice(from, i.limit ? from + i.limit : undefined);
    const rest = lines.length - from - slice.length;
    return slice.join('\n') + (rest > 0 ? `\n[${rest} more lines]` : '');
  }
}
