import { z } from 'zod';
import type { ToolsConfig } from '@nestclaw/config';
import { measureUsage, mib, watchQuota } from '../executor/workspace-quota';
import { commandConversationFileReason } from '../approval/conversation-files';
import { evaluateCommand } from '../policy/exec-policy';
import { Tool, ToolError, ToolRuntime } from '../tool.port';
import type { PrecheckResult } from '../tool.port';

const input = z.object({
  command: z.string().min(1).describe('Shell command; runs in the workspace'),
  timeout_ms: z.number().int().positive().optional(),
});

const MIB = 1024 * 1024;

/**
 * Runs a command through the exec policy and the active executor: only inside a real sandbox (or
 * the native executor the owner opted into). Without one the tool is not offered at all.
 */
export class ShellTool implements Tool<typeof input> {
  readonly name = 'shell';
  readonly description = 'Run a shell command in the sandboxed workspace.';
  readonly input = input;
  readonly sideEffects = () => true;
  readonly needsSandbox = true;
  readonly runsCommands = true;

  constructor(private readonly config: () => ToolsConfig) {}

  approvalKey(i: z.output<typeof input>): string {
    return i.command;
  }

  async precheck(i: z.output<typeof input>, ctx?: Pick<ToolRuntime, 'workspace'>): Promise<PrecheckResult> {
    const verdict = await evaluateCommand(i.command, this.config().exec, ctx?.workspace);
    if (!verdict.allowed) throw new ToolError(`refused by exec policy: ${verdict.reason}`);
    const shapes = commandConversationFileReason(i.command);
    const flagged = shapes ? { shapesEveryConversation: shapes } : {};
    if (!verdict.unspecified.length) return flagged;
    const names = verdict.unspecified.map((p) => `'${p}'`).join(', ');
    return {
      ...flagged,
      approvalNote: `UNCHECKED: ${names} ${verdict.unspecified.length > 1 ? 'have' : 'has'} no spec in tools.exec.programs, so ${verdict.unspecified.length > 1 ? 'their' : 'its'} options and file arguments are not checked`,
    };
  }

  async execute(ctx: ToolRuntime, i: z.output<typeof input>, signal: AbortSignal): Promise<string> {
    await this.precheck(i, ctx);
    const t = this.config();
    const quota = t.limits.workspace_mb * MIB;
    const watched = ctx.workspace.access === 'rw';
    let room = quota;
    if (watched) {
      const before = measureUsage(ctx.workspace.hostPath, quota);
      if (before.over)
        throw new ToolError(
          `the workspace is over its quota (${mib(before.bytes)} in ${before.entries} entries; limit ${t.limits.workspace_mb} MiB): delete files before running commands`,
        );
      room = quota - before.bytes;
    }
    const stop = new AbortController();
    const forward = () => stop.abort();
    signal.addEventListener('abort', forward, { once: true });
    if (signal.aborted) stop.abort();
    const watch = watched ? watchQuota(ctx.workspace.hostPath, quota, () => stop.abort()) : undefined;
    let r;
    try {
      r = await ctx.executor.exec(
        {
          argv: ['/bin/sh', '-c', i.command],
          workspace: ctx.workspace,
          timeoutMs: Math.min(i.timeout_ms ?? t.exec.timeout, t.exec.timeout),
          network: t.exec.network,
          maxOutputBytes: t.exec.max_output_bytes,
          maxFileBytes: Math.max(room, 4096),
          limits: { memoryMb: t.limits.memory_mb, pids: t.limits.pids, cpus: t.limits.cpus },
        },
        stop.signal,
      );
    } finally {
      watch?.stop();
      signal.removeEventListener('abort', forward);
    }
    const over = watch?.exceeded;
    if (over) {
      const now = measureUsage(ctx.workspace.hostPath);
      throw new ToolError(
        `stopped: the command grew the workspace beyond its quota of ${t.limits.workspace_mb} MiB (now ${mib(now.bytes)} in ${now.entries} entries); delete files to free space (tools.limits.workspace_mb sets the quota)`,
      );
    }
    const parts = [r.stdout.replace(/\n$/, '')];
    if (r.stderr) parts.push(`[stderr]\n${r.stderr.replace(/\n$/, '')}`);
    if (r.truncated) parts.push('[output truncated]');
    parts.push(r.timedOut ? `[killed: timed out after ${r.durationMs} ms]` : `[exit code ${r.exitCode ?? r.signal}]`);
    return parts.filter(Boolean).join('\n');
  }
}
