import type { ConnectionStatus } from '@nestclaw/mcp';
import type { DoctorCheck } from './doctor.service';

/** One line per MCP server: where it is, whether it is connected, its tools and reconnects (no headers, tokens or env). */
export function mcpChecks(servers: readonly ConnectionStatus[]): DoctorCheck[] {
  return servers.map((s) => {
    const counts = `${s.tools} tool(s), ${s.reconnects} reconnect(s)`;
    if (s.state === 'connected') return { name: `mcp ${s.server}`, status: 'ok', message: `${s.where}: connected, ${counts}` };
    return {
      name: `mcp ${s.server}`,
      status: 'warn',
      message: `${s.where}: ${s.state} (attempt ${s.attempt + 1})${s.lastError ? `: ${s.lastError}` : ''}; ${counts}`,
      fix: 'check the server entry under mcp.servers (command, url, credentials) and the server itself; nestclaw keeps retrying with backoff',
    };
  });
}
