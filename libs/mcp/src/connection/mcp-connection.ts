import { Logger } from '@nestjs/common';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerConfig } from '@nestclaw/config';
import { ToolError } from '@nestclaw/tool';
import { describeServer, openTransport } from '../transport/open-transport';
import { ServerProcessTransport } from '../transport/server-process.transport';
import { reconnectDelay } from './reconnect-delay';
import { renderResult } from './render-result';

/** A tool as the server lists it. */
export interface RemoteTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

export type ConnectionState = 'connecting' | 'connected' | 'reconnecting' | 'stopped';

export interface ConnectionStatus {
  server: string;
  /** `stdio: <command>` or `http: <origin/path>`: never headers, tokens or a query string. */
  where: string;
  state: ConnectionState;
  tools: number;
  /** Times the connection was lost and made again since start. */
  reconnects: number;
  /** Attempts since the last success (0 when connected). */
  attempt: number;
  lastError?: string;
}

const MAX_LIST_PAGES = 20;

/**
 * One MCP server: connects, keeps its tool list current (tools/list_changed), reconnects with backoff
 * when the process dies or the HTTP session breaks, and runs calls with the server's timeout. Nothing
 * here throws past a call: a call that fails is a ToolError the turn reads; the gateway goes on.
 */
export class McpConnection {
  private readonly logger: Logger;
  private client?: Client;
  private tools: RemoteTool[] = [];
  private state: ConnectionState = 'connecting';
  private attempt = 0;
  private reconnects = 0;
  private everConnected = false;
  private lastError?: string;
  private timer?: NodeJS.Timeout;
  private probing = false;

  constructor(
    readonly server: string,
    private readonly config: McpServerConfig,
    /** Called whenever the tool list may have changed (connected, refreshed, list_changed). */
    private readonly onTools: () => void,
  ) {
    this.logger = new Logger(`MCP ${server}`);
  }

  start(): void {
    void this.connect();
  }

  async stop(): Promise<void> {
    this.state = 'stopped';
    clearTimeout(this.timer);
    const client = this.client;
    this.client = undefined;
    await client?.close().catch(() => undefined);
  }

  /** The tools the server listed last (kept while reconnecting, so a call says why it fails instead of "unknown tool"). */
  listed(): readonly RemoteTool[] {
    return this.tools;
  }

  status(): ConnectionStatus {
    return {
      server: this.server,
      where: describeServer(this.config),
      state: this.state,
      tools: this.tools.length,
      reconnects: this.reconnects,
      attempt: this.attempt,
      ...(this.lastError ? { lastError: this.lastError } : {}),
    };
  }

  async call(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<string> {
    const client = this.client;
    if (!client || this.state !== 'connected') {
      throw new ToolError(
        `MCP server "${this.server}" is not connected (${this.state}${this.lastError ? `: ${this.lastError}` : ''}); try again later`,
      );
    }
    const timeout = this.config.timeout;
    try {
      const result = await client.callTool({ name: tool, arguments: args }, undefined, { timeout, maxTotalTimeout: timeout, signal });
      return renderResult(result);
    } catch (e) {
      if (e instanceof ToolError) throw e;
      if (e instanceof McpError && e.code === ErrorCode.RequestTimeout) {
        throw new ToolError(`MCP server "${this.server}" did not answer ${tool} within ${timeout} ms (the call was cancelled)`);
      }
      if (signal.aborted) throw new ToolError('cancelled');
      // A JSON-RPC error is the server's answer; anything else (a closed process, a refused or
      // broken HTTP session) means the connection is gone: make it again.
      if (!(e instanceof McpError) || e.code === ErrorCode.ConnectionClosed) this.lost(client, (e as Error).message);
      throw new ToolError(`MCP server "${this.server}" failed on ${tool}: ${(e as Error).message}`);
    }
  }

  private async connect(): Promise<void> {
    if (this.state === 'stopped') return;
    const client = new Client({ name: 'nestclaw', version: '1.0.0' }, { capabilities: {} });
    let transport: Transport | undefined;
    let oversize: string | undefined;
    try {
      transport = openTransport(this.config, (message) => {
        oversize = message;
        this.dropOversized(client, message);
      });
      client.onclose = () => this.lost(client, 'connection closed');
      // Errors on the side channel (the HTTP notification stream, a garbage line): check the server still answers.
      client.onerror = () => void this.probe(client);
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => void this.refresh(client));
      await client.connect(transport, { timeout: this.config.timeout });
      if (this.isStopped()) {
        await client.close();
        return;
      }
      this.client = client;
      await this.refresh(client);
      if (this.client !== client) return; // lost again while listing
      if (oversize) return this.lost(client, oversize); // cut before it was this connection's client
      if (this.everConnected) this.reconnects++;
      this.everConnected = true;
      this.attempt = 0;
      this.lastError = undefined;
      this.state = 'connected';
      this.logger.log(`connected (${describeServer(this.config)}), ${this.tools.length} tool(s)`);
    } catch (e) {
      const tail = transport instanceof ServerProcessTransport ? transport.stderrTail() : '';
      this.lastError = oversize ?? `${(e as Error).message}${tail ? ` (stderr: ${tail.slice(-200)})` : ''}`;
      if (this.client === client) this.client = undefined;
      await client.close().catch(() => undefined);
      this.retryLater();
    }
  }

  /** Read anew after an await: stop() may have run meanwhile. */
  private isStopped(): boolean {
    return this.state === 'stopped';
  }

  /** The connection behind `client` is gone (a stale client's late close is ignored). */
  private lost(client: Client, why: string): void {
    if (this.client !== client || this.state === 'stopped') return;
    this.client = undefined;
    this.lastError = why;
    void client.close().catch(() => undefined);
    this.retryLater();
  }

  /**
   * The server's notification stream was cut for an over-size event. The SDK would open that stream
   * again at once, against the same server, for ever; dropping the whole connection hands it to the
   * backoff instead. An attempt still connecting sees it once it has listed the tools (connect()).
   */
  private dropOversized(client: Client, message: string): void {
    this.logger.error(message);
    if (this.client === client) this.lost(client, message);
  }

  private retryLater(): void {
    if (this.state === 'stopped') return;
    this.attempt++;
    this.state = this.everConnected ? 'reconnecting' : 'connecting';
    const delay = reconnectDelay(this.attempt);
    this.logger.warn(`not connected (${this.lastError ?? 'unknown error'}); attempt ${this.attempt + 1} in ${delay} ms`);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.connect(), delay);
    this.timer.unref();
  }

  /** Re-reads the tool list (after connecting and on every tools/list_changed). */
  private async refresh(client: Client): Promise<void> {
    try {
      const tools: RemoteTool[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < MAX_LIST_PAGES; page++) {
        const r = await client.listTools(cursor ? { cursor } : undefined, { timeout: this.config.timeout });
        for (const t of r.tools)
          tools.push({ name: t.name, description: t.description, inputSchema: t.inputSchema as Record<string, unknown> });
        cursor = r.nextCursor;
        if (!cursor) break;
      }
      if (this.client !== client) return;
      this.tools = tools;
      this.logger.debug(`tool list: ${tools.map((t) => t.name).join(', ')}`);
      this.onTools();
    } catch (e) {
      this.logger.warn(`could not list tools: ${(e as Error).message}`);
      if (!(e instanceof McpError) || e.code === ErrorCode.ConnectionClosed) this.lost(client, (e as Error).message);
    }
  }

  private async probe(client: Client): Promise<void> {
    if (this.probing || this.client !== client) return;
    this.probing = true;
    try {
      await client.ping({ timeout: Math.min(this.config.timeout, 10_000) });
    } catch (e) {
      this.lost(client, `no answer to ping: ${(e as Error).message}`);
    } finally {
      this.probing = false;
    }
  }
}
