import { Injectable } from '@nestjs/common';
import { z } from 'zod';
import type { ToolDefinition } from '@nestclaw/provider';
import { CurrentTimeTool } from './tools/current-time.tool';
import { Tool, ToolContext, ToolResult } from './tool.port';

/** Results longer than this are cut with a note, so one tool cannot flood the context. */
export const MAX_TOOL_OUTPUT_CHARS = 16_000;

@Injectable()
export class ToolRegistry {
  private readonly tools = new Map<string, Tool>();
  private readonly definitions = new Map<string, ToolDefinition>();

  constructor() {
    this.register(new CurrentTimeTool());
  }

  register(tool: Tool): void {
    this.tools.set(tool.name, tool);
    const schema = z.toJSONSchema(tool.input, { target: 'draft-7' }) as Record<string, unknown>;
    delete schema.$schema;
    this.definitions.set(tool.name, { name: tool.name, description: tool.description, parameters: schema });
  }

  /** Definitions for the enabled tools that exist, in the order given. */
  definitionsFor(names: readonly string[]): ToolDefinition[] {
    return names.map((n) => this.definitions.get(n)).filter((d): d is ToolDefinition => !!d);
  }

  /** Never throws: unknown tools, bad input and failures come back to the model as error results. */
  async execute(
    name: string,
    rawArguments: string,
    ctx: ToolContext,
    enabled: readonly string[],
    signal: AbortSignal,
  ): Promise<ToolResult> {
    const tool = this.tools.get(name);
    if (!tool || !enabled.includes(name)) return { output: `error: unknown tool "${name}"`, isError: true };
    let args: unknown;
    try {
      args = rawArguments.trim() ? JSON.parse(rawArguments) : {};
    } catch {
      return { output: `error: arguments are not valid JSON: ${rawArguments.slice(0, 200)}`, isError: true };
    }
    const parsed = tool.input.safeParse(args);
    if (!parsed.success) {
      const why = parsed.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; ');
      return { output: `error: invalid input: ${why}`, isError: true };
    }
    try {
      return { output: capOutput(await tool.execute(ctx, parsed.data, signal)), isError: false };
    } catch (e) {
      return { output: `error: ${(e as Error).message}`, isError: true };
    }
  }
}

export function capOutput(text: string, max = MAX_TOOL_OUTPUT_CHARS): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n[output truncated: ${text.length - max} more characters]`;
}
