import { withoutNul } from '@nestclaw/common';
import { Injectable } from '@nestjs/common';
import type { AgentConfig } from '@nestclaw/config';
import { recordToolRefusal, startToolRun } from '@nestclaw/observability';
import { AuditEntry, AuditRepository } from './audit/audit.repository';
import { ExecutorSelector } from './executor/executor.selector';
import { HostFileExecutor } from './executor/host-file.executor';
import { HookRegistry } from './hooks/hook.registry';
import { capOutput, ToolRegistry } from './tool.registry';
import { PrecheckResult, Tool, ToolContext, ToolError, ToolResult } from './tool.port';
import { toolInputProblem } from './tool-input.validation';
import { ToolCallRules } from './tool-call.rules';
import { WorkspaceLocator } from './workspace/workspace.locator';
import { OWNER_PERSON } from './approval/conversation-files';

/** A validated call, ready to run once approved (or right away when no approval is needed). */
export interface PreparedCall {
  tool: Tool;
  input: unknown;
  needsApproval: boolean;
  /** Why it waits for a human (the matched rule, in words), when it does. */
  approvalRule?: string;
  /** Exact-match key for approvals remembered with "remember". */
  matchKey: string;
  /** Why the call shapes every conversation (writes a bootstrap, memory or skill file); its approval says so. */
  shapesEveryConversation?: string;
  /** Only the owner may approve it: it shapes every conversation and the turn is not the owner's. */
  ownerOnly: boolean;
}

export type Preparation = { kind: 'ready'; call: PreparedCall } | { kind: 'result'; result: ToolResult };

type Prechecked = Tool & {
  precheck?: (input: unknown, ctx?: { workspace: ReturnType<WorkspaceLocator['forContext']> }) => Promise<PrecheckResult | void>;
  approvalKey?: (input: unknown) => string;
};

/** Tools that need no executor (current_time, http_request, web_search) never call it. */
const NO_EXECUTOR = new HostFileExecutor();

const error = (output: string): Preparation => ({ kind: 'result', result: { output: `error: ${output}`, isError: true } });

/** Canonical JSON (sorted keys), so the same input always gives the same remember key. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/** Takes a call's audit entry for its caller to store (ToolInvoker's `defer`). */
export type AuditSink = (entry: AuditEntry) => void;

/**
 * The tool call path: validate → PreToolUse hooks (config rules, then in-process) → policy
 * precheck → approval requirement; then, once allowed, execute in the active executor →
 * PostToolUse → size cap → audit. Never throws: every failure is a result the model reads.
 */
@Injectable()
export class ToolInvoker {
  constructor(
    private readonly registry: ToolRegistry,
    private readonly selector: ExecutorSelector,
    private readonly workspaces: WorkspaceLocator,
    private readonly hooks: HookRegistry,
    private readonly audit: AuditRepository,
    private readonly rules: ToolCallRules,
  ) {}

  /**
   * `defer`, when given, takes the call's audit entry instead of its own INSERT (as in `run`): the turn
   * writes it with the step's progress, one statement fewer per tool step.
   */
  async prepare(name: string, rawArguments: string, ctx: ToolContext, agent: AgentConfig, defer?: AuditSink): Promise<Preparation> {
    const tool = this.registry.get(name) as Prechecked | undefined;
    if (!tool || !this.registry.selected(agent.tools).includes(name)) return error(`unknown tool ${JSON.stringify(name.slice(0, 100))}`);
    let args: unknown;
    try {
      args = rawArguments.trim() ? JSON.parse(rawArguments) : {};
    } catch {
      return error(`arguments are not valid JSON: ${JSON.stringify(rawArguments.slice(0, 200))}`);
    }
    // Before anything about the call is stored (audit, approval rows): NUL, encoding, size.
    const problem = toolInputProblem(rawArguments, args);
    if (problem) return this.refused(name, '(not stored: invalid)', ctx, `invalid input: ${problem}`, defer);
    const blocked = this.rules.blocked(name, args);
    if (blocked) return this.refused(name, args, ctx, blocked, defer);
    const pre = await this.hooks.preToolUse({ ctx, tool: name, input: args });
    if (pre.block) return this.refused(name, args, ctx, pre.block, defer);
    const parsed = tool.input.safeParse(pre.input);
    if (!parsed.success) {
      const why = parsed.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; ');
      return error(`invalid input: ${why}`);
    }
    let input = parsed.data as unknown;
    if (tool.needsSandbox) {
      const selection = await this.selector.select();
      if (!(tool.runsCommands ? selection.executor : selection.files))
        return this.refused(name, input, ctx, `tool disabled: ${selection.status.disabledReason}`, defer);
    }
    let checked: PrecheckResult | void;
    try {
      checked = await tool.precheck?.(input, { workspace: this.workspaces.forContext(ctx, agent) });
    } catch (e) {
      return this.refused(name, input, ctx, (e as Error).message, defer);
    }
    const matchKey = tool.approvalKey ? tool.approvalKey(input) : canonicalJson(input);
    // A note (e.g. a program without a spec) needs a human decision (or one remembered for this exact call) and shows in the prompt.
    const note = checked?.approvalNote;
    if (note) input = { ...(input as object), approval_note: note };
    // Someone other than the owner changing what every conversation hears always waits for the owner,
    // whatever the approval rules or a remembered approval say.
    const shapes = checked?.shapesEveryConversation;
    const ownerOnly = !!shapes && ctx.personId !== OWNER_PERSON;
    const toolAsks = note ? `the ${name} tool asks: ${note}` : tool.requiresApproval ? `the ${name} tool always asks` : undefined;
    const rule = ownerOnly
      ? "it changes what every conversation hears and was asked outside the owner's conversations: only the owner may approve"
      : await this.rules.approvalRule(name, input, matchKey, toolAsks);
    return {
      kind: 'ready',
      call: {
        tool,
        input,
        needsApproval: rule !== undefined,
        ...(rule !== undefined ? { approvalRule: rule } : {}),
        matchKey,
        ownerOnly,
        ...(shapes ? { shapesEveryConversation: shapes } : {}),
      },
    };
  }

  /** Runs an allowed call; its audit entry goes to `defer` when given, else to the audit log at once. */
  async run(call: PreparedCall, ctx: ToolContext, agent: AgentConfig, signal: AbortSignal, defer?: AuditSink): Promise<ToolResult> {
    const started = Date.now();
    const telemetry = startToolRun(call.tool.name);
    let result: ToolResult;
    try {
      const selection = await this.selector.select();
      const executor = call.tool.runsCommands ? selection.executor : selection.files;
      if (call.tool.needsSandbox && !executor) throw new ToolError(`tool disabled: ${selection.status.disabledReason}`);
      const runtime = { ...ctx, workspace: this.workspaces.forContext(ctx, agent), executor: executor ?? NO_EXECUTOR };
      result = { output: await call.tool.execute(runtime, call.input, signal), isError: false };
    } catch (e) {
      result = { output: `error: ${(e as Error).message}`, isError: true };
    }
    // PostgreSQL's text columns refuse U+0000, which a tool's output may hold (an MCP server's answer, a
    // binary file printed): kept, it failed the whole turn when the transcript was written.
    let output = this.rules.redact(call.tool.name, withoutNul(result.output));
    output = await this.hooks.postToolUse({ ctx, tool: call.tool.name, input: call.input, output, isError: result.isError });
    result = { output: capOutput(output), isError: result.isError };
    telemetry.end(result);
    await this.audited(defer, {
      actor: `agent:${ctx.agentId}`,
      action: 'tool.execute',
      target: `${call.tool.name} ${call.matchKey}`,
      outcome: result.isError ? 'error' : 'ok',
      durationMs: Date.now() - started,
      sessionId: ctx.sessionId,
      detail: { turnId: ctx.turnId },
    });
    return result;
  }

  private async refused(name: string, input: unknown, ctx: ToolContext, reason: string, defer?: AuditSink): Promise<Preparation> {
    recordToolRefusal(name);
    await this.audited(defer, {
      actor: `agent:${ctx.agentId}`,
      action: 'tool.execute',
      target: `${name} ${canonicalJson(input)}`,
      outcome: 'refused',
      sessionId: ctx.sessionId,
      detail: { turnId: ctx.turnId, reason },
    });
    return error(reason);
  }

  private async audited(defer: AuditSink | undefined, entry: AuditEntry): Promise<void> {
    if (defer) defer(entry);
    else await this.audit.record(entry);
  }
}
