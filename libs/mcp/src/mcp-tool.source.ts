import type { McpServerConfig } from '@nestclaw/config';
import type { Tool, ToolSource } from '@nestclaw/tool';
import type { McpConnection } from './connection/mcp-connection';
import { parseEntry, wireName } from './naming/tool-names';
import { McpTool } from './tools/mcp-tool';

/**
 * Every configured server's offered tools, for the tool registry. The list is rebuilt when a server's
 * tool list changes, so the registry always sees the current one (new objects, new definitions).
 */
export class McpToolSource implements ToolSource {
  private current: readonly McpTool[] = [];

  constructor(private readonly servers: ReadonlyMap<string, { config: McpServerConfig; connection: McpConnection }>) {}

  tools(): readonly Tool[] {
    return this.current;
  }

  select(entry: string): string[] {
    const s = parseEntry(entry);
    if (!s || !this.servers.has(s.server)) return [];
    const prefix = wireName(s.server, '')!;
    return this.current.filter((t) => (s.all ? t.name.startsWith(prefix) : t.name === s.wire)).map((t) => t.name);
  }

  /** Rebuilds the list from what each server listed last, keeping only the tools its entry offers. */
  rebuild(): void {
    const tools: McpTool[] = [];
    const seen = new Set<string>();
    for (const [server, { config, connection }] of this.servers) {
      for (const remote of connection.listed()) {
        if (!config.tools.includes('*') && !config.tools.includes(remote.name)) continue;
        const name = wireName(server, remote.name);
        // Too long, or two server names that differ only in characters the wire name cannot hold: not offered.
        if (!name || seen.has(name)) continue;
        seen.add(name);
        const approval = config.require_approval;
        const requires = approval === true || (Array.isArray(approval) && approval.includes(remote.name));
        tools.push(new McpTool(name, remote, connection, requires));
      }
    }
    this.current = tools;
  }
}
