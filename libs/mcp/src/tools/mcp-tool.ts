import { z } from 'zod';
import type { Tool, ToolRuntime } from '@nestclaw/tool';
import type { McpConnection, RemoteTool } from '../connection/mcp-connection';

/** Longest tool description passed on to the model (a server may write essays). */
const MAX_DESCRIPTION = 1_000;

/** Any JSON object: the server checks its own schema; the invoker's checks (size, NUL, hooks) come first. */
const anyObject = z.record(z.string(), z.unknown());

/**
 * One server tool as a nestclaw tool: shown to the model under its wire name with the server's own
 * JSON Schema, called through the ToolInvoker like every other tool (policy, approval, hooks, audit,
 * output cap); `execute` only forwards to the connection.
 */
export class McpTool implements Tool<typeof anyObject> {
  readonly input = anyObject;
  readonly description: string;
  readonly parameters: Record<string, unknown>;

  constructor(
    readonly name: string,
    private readonly remote: RemoteTool,
    private readonly connection: McpConnection,
    readonly requiresApproval: boolean,
  ) {
    const about = `[MCP server ${connection.server}] ${remote.description ?? remote.name}`;
    this.description = about.length > MAX_DESCRIPTION ? `${about.slice(0, MAX_DESCRIPTION)}…` : about;
    const { $schema: _drop, ...schema } = remote.inputSchema;
    this.parameters = { type: 'object', properties: {}, ...schema };
  }

  execute(_ctx: ToolRuntime, input: Record<string, unknown>, signal: AbortSignal): Promise<string> {
    return this.connection.call(this.remote.name, input, signal);
  }
}
