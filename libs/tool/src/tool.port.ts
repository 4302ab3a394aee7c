import type { z } from 'zod';

export interface ToolContext {
  sessionId: string;
  turnId: string;
  agentId: string;
}

/** A capability the model may call. Input is validated against `input` before `execute` runs. */
export interface Tool<Schema extends z.ZodType = z.ZodType> {
  readonly name: string;
  readonly description: string;
  readonly input: Schema;
  execute(ctx: ToolContext, input: z.output<Schema>, signal: AbortSignal): Promise<string>;
}

export interface ToolResult {
  output: string;
  isError: boolean;
}
