import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { ConfigService, McpServerConfig } from '@nestclaw/config';
import { ToolRegistry } from '@nestclaw/tool';
import { ConnectionStatus, McpConnection } from './connection/mcp-connection';
import { McpToolSource } from './mcp-tool.source';

/**
 * The configured MCP servers (`mcp.servers`, docs/mcp.md): connects each one at start without waiting
 * for it (a slow server never holds up the gateway), offers their tools through the tool registry,
 * and reports each connection for /doctor. Static config: a change applies at the next start.
 */
@Injectable()
export class McpService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('MCP');
  private readonly servers = new Map<string, { config: McpServerConfig; connection: McpConnection }>();
  private readonly source = new McpToolSource(this.servers);

  constructor(
    private readonly config: ConfigService,
    private readonly registry: ToolRegistry,
  ) {}

  onModuleInit(): void {
    const configured = Object.entries(this.config.get().mcp.servers);
    if (!configured.length) return;
    for (const [name, config] of configured) {
      this.servers.set(name, { config, connection: new McpConnection(name, config, () => this.source.rebuild()) });
    }
    this.registry.addSource(this.source);
    for (const { connection } of this.servers.values()) connection.start();
    this.logger.log(`connecting to ${configured.length} MCP server(s): ${configured.map(([n]) => n).join(', ')}`);
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...this.servers.values()].map(({ connection }) => connection.stop()));
  }

  status(): ConnectionStatus[] {
    return [...this.servers.values()].map(({ connection }) => connection.status());
  }
}
