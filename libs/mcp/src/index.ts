export { McpModule } from './mcp.module';
export { McpService } from './mcp.service';
export type { ConnectionStatus, ConnectionState } from './connection/mcp-connection';
export { wireName, parseEntry } from './naming/tool-names';
