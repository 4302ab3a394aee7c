import { homedir } from 'node:os';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpServerConfig } from '@nestclaw/config';
import { cappedFetch } from './capped-fetch';
import { ServerProcessTransport } from './server-process.transport';

/**
 * A fresh transport for one connection attempt. A stdio server gets PATH and HOME and what its entry's
 * `env` says, nothing else of the gateway's environment (no API keys, no token, no database URL).
 * `onOversize` hears when an HTTP server's notification stream was cut for an over-size event.
 */
export function openTransport(server: McpServerConfig, onOversize?: (message: string) => void): Transport {
  if (server.transport === 'stdio') {
    return new ServerProcessTransport({
      command: server.command,
      args: server.args,
      env: { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin', HOME: homedir(), ...server.env },
      ...(server.cwd ? { cwd: server.cwd } : {}),
    });
  }
  const headers: Record<string, string> = { ...server.headers };
  if (server.bearer_token) headers.authorization = `Bearer ${server.bearer_token}`;
  return new StreamableHTTPClientTransport(new URL(server.url), {
    requestInit: { headers },
    fetch: cappedFetch({ onOversize }),
    // The connection's own reconnect (with backoff) takes over when the notification stream breaks.
    reconnectionOptions: { initialReconnectionDelay: 500, maxReconnectionDelay: 5_000, reconnectionDelayGrowFactor: 2, maxRetries: 1 },
  });
}

/** Where a server is, for logs and /doctor: the command or the URL's origin and path (never headers or a query). */
export function describeServer(server: McpServerConfig): string {
  if (server.transport === 'stdio') return `stdio: ${server.command}`;
  const url = new URL(server.url);
  return `http: ${url.origin}${url.pathname}`;
}
