import { z } from 'zod';
import type { Tool, ToolRuntime } from '@nestclaw/tool';

/** Longest tool description passed on to the model. */
const MAX_DESCRIPTION = 1_000;

const anyObject = z.record(z.string(), z.unknown());

/** How a plugin tool runs a call: in-process (trusted) or over JSON-RPC to its child (untrusted). */
export type PluginCall = (input: Record<string, unknown>, ctx: ToolRuntime, signal: AbortSignal) => Promise<string>;

export interface PluginToolSpec {
  plugin: string;
  name: string;
  description: string;
  inputSchema?: Record<string, unknown>;
  requiresApproval?: boolean;
  sideEffects?: boolean;
}

/**
 * A plugin's tool as a nestclaw tool: the model sees the plugin's JSON Schema, the invoker checks
 * every call against it (where zod can read it) and applies policy, approval, hooks, audit and the
 * output cap before `execute` only forwards the call.
 */
export class PluginTool implements Tool<z.ZodType<Record<string, unknown>>> {
  readonly name: string;
  readonly description: string;
  readonly input: z.ZodType<Record<string, unknown>>;
  readonly parameters: Record<string, unknown>;
  readonly requiresApproval: boolean;
  private readonly noSideEffects: boolean;

  constructor(
    spec: PluginToolSpec,
    private readonly call: PluginCall,
  ) {
    this.name = spec.name;
    const about = `[plugin ${spec.plugin}] ${spec.description || spec.name}`;
    this.description = about.length > MAX_DESCRIPTION ? `${about.slice(0, MAX_DESCRIPTION)}…` : about;
    const { $schema: _drop, ...schema } = spec.inputSchema ?? {};
    this.parameters = { type: 'object', properties: {}, ...schema };
    this.input = inputValidator(this.parameters);
    this.requiresApproval = spec.requiresApproval === true;
    this.noSideEffects = spec.sideEffects === false;
  }

  sideEffects(): boolean {
    return !this.noSideEffects;
  }

  execute(ctx: ToolRuntime, input: Record<string, unknown>, signal: AbortSignal): Promise<string> {
    return this.call(input, ctx, signal);
  }
}

/** The schema as zod when zod can read it; any object otherwise (the plugin checks its own input then). */
function inputValidator(schema: Record<string, unknown>): z.ZodType<Record<string, unknown>> {
  try {
    const parsed = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
    return anyObject.pipe(parsed as unknown as z.ZodType<Record<string, unknown>, Record<string, unknown>>);
  } catch {
    return anyObject;
  }
}
