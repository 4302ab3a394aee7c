import { z } from 'zod';
import type { ToolsConfig } from '@nestclaw/config';
import { evaluateCommand } from '../policy/exec-policy';
import { Tool, ToolError, ToolRuntime } from '../tool.port';

const input = z.object({
  command: z.string().min(1).describe('Shell command; runs in the workspace'),
  timeout_ms: z.number().int().positive().optional(),
});

/** Runs a command through the exec policy and the active executor; never on the bare host. */
export class ShellTool implements Tool<typeof input> {
  readonly name = 'shell';
  readonly description = 'Run a shell command in the sandboxed workspace.';
  readonly input = input;
  readonly needsSandbox = true;

  constructor(private readonly config: () => ToolsConfig) {}

  approvalKey(i: z.output<typeof input>): string {
    return i.command.trim();
  }

  async precheck(i: z.output<typeof input>, ctx?: Pick<ToolRuntime, 'workspace'>): Promise<void> {
    const verdict = await evaluateCommand(i.command, this.config().exec, ctx?.workspace);
    if (!verdict.allowed) throw new ToolError(`refused by exec policy: ${verdict.reason}`);
  }

  async execute(ctx: ToolRuntime, i: z.output<typeof input>, signal: AbortSignal): Promise<string> {
    await this.precheck(i, ctx);
    const t = this.config();
    const r = await ctx.executor.exec(
      {
        argv: ['/bin/sh', '-c', i.command],
        workspace: ctx.workspace,
        timeoutMs: Math.min(i.timeout_ms ?? t.exec.timeout, t.exec.timeout),
        network: t.exec.network,
        maxOutputBytes: t.exec.max_output_bytes,
        limits: { memoryMb: t.limits.memory_mb, pids: t.limits.pids, cpus: t.limits.cpus },
      },
      signal,
    );
    const parts = [r.stdout.replace(/\n$/, '')];
    if (r.stderr) parts.push(`[stderr]\n${r.stderr.replace(/\n$/, '')}`);
    if (r.truncated) parts.push('[output truncated]');
    parts.push(r.timedOut ? `[killed: timed out after ${r.durationMs} ms]` : `[exit code ${r.exitCode ?? r.signal}]`);
    return parts.filter(Boolean).join('\n');
  }
}
