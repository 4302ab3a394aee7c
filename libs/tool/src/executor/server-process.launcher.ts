import { spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';

/** A long-running helper process the owner configured (an MCP server over stdio), as its user sees it. */
export interface ServerProcess {
  readonly pid: number | undefined;
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** Resolves once the process runs; rejects when it cannot start (no such program, not executable). */
  readonly started: Promise<void>;
  /** Called once when the process is gone (exited, killed, or never started). */
  onExit(listener: (code: number | null, signal: string | null) => void): void;
  /** SIGTERM to its whole process group, SIGKILL after `graceMs` if anything is left. */
  stop(graceMs?: number): void;
}

export interface ServerProcessSpec {
  command: string;
  args: readonly string[];
  /** The complete environment: nothing of the gateway's own is added. */
  env: Record<string, string>;
  cwd?: string;
}

/**
 * Starts an owner-configured server process (not a model-requested command: no exec policy, no
 * sandbox) with exactly the environment given, in its own process group so stopping it also stops
 * whatever it started. The one place outside `runProcess` that spawns, so the tool lib's rule
 * (only `executor/` starts processes) holds for MCP servers too.
 */
export function launchServerProcess(spec: ServerProcessSpec): ServerProcess {
  const child = spawn(spec.command, [...spec.args], {
    cwd: spec.cwd,
    env: spec.env,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
    windowsHide: true,
  });
  const started = new Promise<void>((resolve, reject) => {
    child.once('spawn', () => resolve());
    child.once('error', (e) => reject(e));
  });
  started.catch(() => undefined);
  child.stdin.on('error', () => undefined);
  let gone = false;
  const listeners: ((code: number | null, signal: string | null) => void)[] = [];
  const finish = (code: number | null, signal: string | null) => {
    if (gone) return;
    gone = true;
    signalGroup('SIGKILL'); // anything the server started goes with it
    for (const l of listeners) l(code, signal);
  };
  const signalGroup = (sig: NodeJS.Signals) => {
    if (!child.pid) return;
    try {
      process.kill(-child.pid, sig);
    } catch {
      // already gone
    }
  };
  child.once('exit', (code, signal) => finish(code, signal));
  child.once('error', () => finish(null, null));
  return {
    pid: child.pid,
    stdin: child.stdin,
    stdout: child.stdout,
    stderr: child.stderr,
    started,
    onExit: (l) => {
      if (gone) l(child.exitCode, child.signalCode);
      else listeners.push(l);
    },
    stop: (graceMs = 2_000) => {
      if (gone) return;
      signalGroup('SIGTERM');
      setTimeout(() => gone || signalGroup('SIGKILL'), graceMs).unref();
    },
  };
}
