import type { z } from 'zod';
import type { ToolExecutor } from './executor/tool-executor.port';
import type { Workspace } from './workspace/workspace';

/** Who is calling a tool, and where its files live. */
/** What the model is told about a tool (the provider port's ToolDefinition has the same shape). */
export interface ToolSchema {
  name: string;
  description: string;
  /** JSON Schema of the input object. */
  parameters: Record<string, unknown>;
}

export interface ToolContext {
  sessionId: string;
  turnId: string;
  agentId: string;
  /** Whose turn it is (memory scope), when the agent could tell. */
  personId?: string;
  /** Where the turn came from (`http`, `telegram`, `cron`, `heartbeat`, `subagent`, …). */
  channel?: string;
}

/** What a tool gets to work with: the caller, its workspace and the executor that runs everything. */
export interface ToolRuntime extends ToolContext {
  workspace: Workspace;
  executor: ToolExecutor;
}

/** A capability the model may call. Input is validated against `input` before `execute` runs. */
export interface Tool<Schema extends z.ZodType = z.ZodType> {
  readonly name: string;
  readonly description: string;
  readonly input: Schema;
  /** Needs a process or file boundary: disabled when policy requires a sandbox and none is available. */
  readonly needsSandbox?: boolean;
  /** Starts processes (shell): offered only when Docker, bubblewrap or the opted-in native executor runs them. */
  readonly runsCommands?: boolean;
  /**
   * Whether a call can change anything outside the turn (files, processes, remote state), judged on
   * the input as the model wrote it. Unset means yes: after a crash, a turn is asked again only when
   * none of its calls can have had an effect (agent recovery), so only a tool that is sure says false.
   */
  sideEffects?(input: z.output<Schema>): boolean;
  /**
   * The JSON Schema the model is shown, when the tool brings its own (an MCP server's tool) instead of
   * the one derived from `input`; `input` still checks every call before it runs.
   */
  readonly parameters?: Record<string, unknown>;
  /**
   * Every call waits for a human decision (or one remembered for that exact call), whatever
   * `tools.approval.required` says: set by a source whose owner asked for it (MCP servers by default).
   */
  readonly requiresApproval?: boolean;
  execute(ctx: ToolRuntime, input: z.output<Schema>, signal: AbortSignal): Promise<string>;
}

/** What a tool's precheck may add to a call it lets through. */
export interface PrecheckResult {
  /** The call must be approved by a human, and the approval prompt shows this note. */
  approvalNote?: string;
  /** The call writes a file that shapes every conversation (bootstrap file, memory file, skill): why. */
  shapesEveryConversation?: string;
}

export interface ToolResult {
  output: string;
  isError: boolean;
}

/** A failure the model should read as a tool result (not a crash): bad path, policy refusal, … */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolError';
  }
}

/**
 * Tools that come from outside the tool lib and may change while the gateway runs (an MCP server's
 * tool list; plugins later). The registry asks the source each time, so a tool that appears or
 * disappears is offered or refused from the next turn on, through the same invoker as the built-ins.
 */
export interface ToolSource {
  /** The source's tools as they are now. */
  tools(): readonly Tool[];
  /**
   * The names of this source's tools that one entry of an agent's `tools` list selects besides the
   * exact name (e.g. `github.*` or `github.create_issue` for `github__create_issue`); [] when none.
   */
  select?(entry: string): string[];
}
