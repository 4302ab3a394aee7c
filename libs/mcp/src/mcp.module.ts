import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestclaw/config';
import { ToolModule } from '@nestclaw/tool';
import { McpService } from './mcp.service';

/** MCP servers' tools for the agents (gateway only: the CLI never starts servers). */
@Module({ imports: [ConfigModule, ToolModule], providers: [McpService], exports: [McpService] })
export class McpModule {}
