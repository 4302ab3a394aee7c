import { Logger } from '@nestjs/common';
import { realpathSync } from 'node:fs';
import { relative } from 'node:path';
import { allowTraversal, launchSandboxedServer, SandboxedServer, ToolError, type Tool } from '@nestclaw/tool';
import type { DiscoveredPlugin } from '../discovery/plugin.discovery';
import type { PluginManifest } from '../manifest/plugin-manifest.schema';
import { PluginTool } from '../plugin-tool';
import type { PluginState } from '../plugin-status';
import { JsonRpcChannel, RpcClosedError, RpcRemoteError, RpcTimeoutError } from './json-rpc.channel';

/** Where the plugin's own folder appears inside its sandbox (read-only). */
export const PLUGIN_MOUNT = '/plugin';
const INITIALIZE_TIMEOUT_MS = 15_000;
/** Longest answer kept from a call (the tool layer caps what the model sees further). */
const MAX_RESULT_CHARS = 1_000_000;
const PIDS = 64;

/** Wait before restart `attempt` (1, 2, …): 0.5 s doubling to 30 s. */
export const restartDelay = (attempt: number) => Math.min(30_000, 500 * 2 ** Math.max(0, attempt - 1));

interface RemoteTool {
  name: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
}

/**
 * One untrusted plugin as a sandboxed child speaking JSON-RPC 2.0 on stdio (docs/plugins.md):
 * `initialize` lists its tools, `tools/call` runs one. A crash restarts it after a backoff (calls
 * meanwhile fail as tool errors), a call without an answer in time fails and the process is
 * restarted (it may be stuck), and output that is not JSON-RPC is logged and ignored.
 */
export class UntrustedPluginHost {
  private readonly logger: Logger;
  private readonly manifest: PluginManifest;
  private state: PluginState = 'starting';
  private proc?: SandboxedServer;
  private rpc?: JsonRpcChannel;
  private offered: Tool[] = [];
  private attempt = 0;
  private restarts = 0;
  private lastError?: string;
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private noiseLogged = 0;
  private noise = 0;
  private cgroup = true;

  constructor(
    private readonly plugin: DiscoveredPlugin,
    /** `$NESTCLAW_HOME`: a plugin folder inside it gets search permission on the way (the sandbox uid must reach it). */
    private readonly home: string,
    /** Called whenever the offered tools change (started, lost). */
    private readonly onTools: (tools: readonly Tool[]) => void,
  ) {
    this.manifest = plugin.manifest!;
    this.logger = new Logger(`Plugin ${this.manifest.name}`);
  }

  start(): void {
    void this.launch();
  }

  stop(): void {
    this.stopped = true;
    this.state = 'disabled';
    clearTimeout(this.timer);
    this.rpc?.close('the plugin was stopped');
    this.proc?.stop(500);
    this.setTools([]);
  }

  status(): { state: PluginState; tools: string[]; restarts: number; error?: string; noise: number; cgroup: boolean; pid?: number } {
    return {
      state: this.state,
      pid: this.proc?.pid,
      tools: this.offered.map((t) => t.name),
      restarts: this.restarts,
      noise: this.noise + (this.rpc?.noise ?? 0),
      cgroup: this.cgroup,
      ...(this.lastError ? { error: this.lastError } : {}),
    };
  }

  private async launch(): Promise<void> {
    if (this.stopped) return;
    const m = this.manifest;
    let proc: SandboxedServer;
    try {
      const dir = realpathSync(this.plugin.dir);
      if (process.getuid?.() === 0 && !relative(realpathSync(this.home), dir).startsWith('..'))
        allowTraversal(dir, realpathSync(this.home));
      proc = launchSandboxedServer({
        argv: commandFor(this.plugin.entryPath!, realpathSync(this.plugin.dir), m.limits.memoryMb),
        binds: [
          { hostPath: realpathSync(this.plugin.dir), path: PLUGIN_MOUNT, mode: 'ro' },
          ...m.permissions.fs.map((g) => ({ hostPath: g.path, path: g.path, mode: g.mode })),
        ],
        network: m.permissions.network,
        shell: m.permissions.shell,
        env: { NESTCLAW_PLUGIN: m.name },
        cwd: PLUGIN_MOUNT,
        limits: { memoryMb: m.limits.memoryMb, pids: PIDS, cpus: 1 },
      });
    } catch (e) {
      return this.failed(`could not start: ${(e as Error).message}`);
    }
    this.proc = proc;
    this.cgroup = proc.cgroup;
    let stderr = '';
    proc.stderr.setEncoding('utf8');
    proc.stderr.on('data', (c: string) => (stderr = (stderr + c).slice(-400)));
    const rpc = new JsonRpcChannel(proc.stdin, proc.stdout, (line) => this.noisy(line));
    this.rpc = rpc;
    /** Why this process is being stopped by us (kept over the exit status for the status line). */
    let reason: string | undefined;
    proc.onExit((code, signal) => {
      rpc.close(`the plugin process exited (${signal ?? `code ${code}`})`);
      this.noise += rpc.noise;
      if (this.proc !== proc) return;
      this.proc = undefined;
      this.rpc = undefined;
      const tail = stderr.trim() ? `; stderr: ${stderr.trim().slice(-200)}` : '';
      this.failed(reason ?? `process exited (${signal ?? `code ${code}`})${tail}`);
    });
    try {
      await proc.started;
      const init = (await rpc.request('initialize', { protocolVersion: 1, config: this.plugin.config }, INITIALIZE_TIMEOUT_MS)) as {
        tools?: unknown;
      };
      if (this.proc !== proc) return;
      this.setTools(this.toolsFrom(init?.tools));
      this.state = 'running';
      this.attempt = 0;
      this.lastError = undefined;
      this.logger.log(`running (sandboxed), ${this.offered.length} tool(s)`);
    } catch (e) {
      if (this.proc !== proc) return;
      const tail = stderr.trim() ? `; stderr: ${stderr.trim().slice(-200)}` : '';
      reason = `initialize failed: ${(e as Error).message}${tail}`;
      proc.stop(200);
    }
  }

  /** The tools the plugin listed that its manifest declared; anything else is ignored. */
  private toolsFrom(listed: unknown): Tool[] {
    if (!Array.isArray(listed)) return [];
    const out: Tool[] = [];
    const seen = new Set<string>();
    for (const t of listed as RemoteTool[]) {
      if (!t || typeof t.name !== 'string' || seen.has(t.name)) continue;
      if (!this.manifest.contributes.tools.includes(t.name)) {
        this.logger.warn(`ignores tool "${String(t.name).slice(0, 64)}": not declared in the manifest`);
        continue;
      }
      seen.add(t.name);
      const schema = t.inputSchema && typeof t.inputSchema === 'object' && !Array.isArray(t.inputSchema) ? t.inputSchema : undefined;
      out.push(
        new PluginTool(
          {
            plugin: this.manifest.name,
            name: t.name,
            description: typeof t.description === 'string' ? t.description : '',
            inputSchema: schema,
          },
          (input, _ctx, signal) => this.call(t.name, input, signal),
        ),
      );
    }
    return out;
  }

  private async call(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<string> {
    const rpc = this.rpc;
    const name = this.manifest.name;
    if (!rpc || this.state !== 'running') {
      throw new ToolError(`plugin ${name} is not running (${this.state}${this.lastError ? `: ${this.lastError}` : ''}); try again later`);
    }
    const timeout = this.manifest.limits.callTimeoutMs;
    let result: unknown;
    try {
      result = await abortable(rpc.request('tools/call', { name: tool, arguments: args }, timeout), signal);
    } catch (e) {
      if (e instanceof RpcTimeoutError) {
        // A plugin that does not answer may be stuck for good: start it afresh.
        this.logger.warn(`${tool} did not answer within ${timeout} ms; restarting the plugin`);
        this.lastError = `${tool} did not answer within ${timeout} ms`;
        this.proc?.stop(200);
        throw new ToolError(`plugin ${name} did not answer ${tool} within ${timeout} ms (the call was cancelled)`);
      }
      if (e instanceof RpcRemoteError) throw new ToolError(`plugin ${name} refused ${tool}: ${e.message}`);
      if (e instanceof RpcClosedError) throw new ToolError(`plugin ${name} failed on ${tool}: ${e.message}`);
      throw new ToolError(signal.aborted ? 'cancelled' : `plugin ${name} failed on ${tool}: ${(e as Error).message}`);
    }
    return render(result);
  }

  private failed(why: string): void {
    this.setTools(this.offered); // kept: a call says why it fails instead of "unknown tool"
    if (this.stopped) return;
    this.lastError = why;
    this.attempt++;
    this.restarts++;
    this.state = 'restarting';
    const delay = restartDelay(this.attempt);
    this.logger.warn(`${why}; restarting in ${delay} ms`);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.launch(), delay);
    this.timer.unref();
  }

  private setTools(tools: Tool[]): void {
    this.offered = tools;
    this.onTools(tools);
  }

  private noisy(line: string): void {
    // A few lines are logged (the plugin's own log output, usually); the rest only counted.
    if (this.noiseLogged++ < 20) this.logger.warn(`ignored output that is not JSON-RPC: ${line.slice(0, 200)}`);
  }
}

/** How the entry runs: Node for scripts, python3 for `.py`, anything else as a program. */
function commandFor(entryPath: string, dir: string, memoryMb: number): string[] {
  const inside = `${PLUGIN_MOUNT}/${relative(dir, entryPath)}`;
  if (/\.(c|m)?js$/.test(entryPath)) {
    // The heap limit keeps V8 under the cgroup's memory limit (and is the only one without cgroups).
    return [process.execPath, `--max-old-space-size=${Math.max(16, Math.floor(memoryMb * 0.75))}`, inside];
  }
  if (entryPath.endsWith('.py')) return ['python3', '-u', inside];
  return [inside];
}

function render(result: unknown): string {
  const r = result as { content?: unknown; isError?: unknown } | null;
  const text = typeof r?.content === 'string' ? r.content : JSON.stringify(result ?? null);
  const out = text.length > MAX_RESULT_CHARS ? text.slice(0, MAX_RESULT_CHARS) : text;
  if (r?.isError === true) throw new ToolError(out);
  return out;
}

function abortable<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (!signal) return p;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new ToolError('cancelled'));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
