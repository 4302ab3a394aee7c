import { spawn } from 'node:child_process';
import type { ExecResult } from './tool-executor.port';

export interface RunOptions {
  stdin?: string;
  timeoutMs: number;
  maxOutputBytes: number;
  env: NodeJS.ProcessEnv;
  cwd?: string;
  signal?: AbortSignal;
  /** Extra clean-up when the deadline passes (e.g. kill a cgroup). */
  onKill?: () => void;
  /** Bytes the child can read from file descriptor 3 (bwrap `--args 3`). */
  fd3?: Buffer;
}

/**
 * Spawns a process in its own process group and always reaps the whole group: on timeout, abort or
 * exit (so a backgrounded grandchild cannot outlive the call). Output beyond the cap is dropped.
 */
export function runProcess(file: string, args: string[], o: RunOptions): Promise<ExecResult> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(file, args, {
      cwd: o.cwd,
      env: o.env,
      detached: true,
      stdio: o.fd3 ? ['pipe', 'pipe', 'pipe', 'pipe'] : ['pipe', 'pipe', 'pipe'],
    });
    if (o.fd3) {
      const fd3 = child.stdio[3] as NodeJS.WritableStream & { on(e: 'error', f: () => void): void };
      fd3.on('error', () => undefined);
      fd3.end(o.fd3);
    }
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outBytes = 0;
    let errBytes = 0;
    let truncated = false;
    let timedOut = false;
    const killGroup = () => {
      if (child.pid) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      o.onKill?.();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, o.timeoutMs);
    const onAbort = () => killGroup();
    o.signal?.addEventListener('abort', onAbort, { once: true });
    // A request cancelled before the process started never fires 'abort' again.
    if (o.signal?.aborted) killGroup();
    const collect = (buf: Buffer[], which: 'out' | 'err') => (d: Buffer) => {
      const used = which === 'out' ? outBytes : errBytes;
      const room = o.maxOutputBytes - used;
      if (room <= 0) {
        truncated = true;
        return;
      }
      const piece = d.length > room ? d.subarray(0, room) : d;
      if (piece.length < d.length) truncated = true;
      buf.push(piece);
      if (which === 'out') outBytes += piece.length;
      else errBytes += piece.length;
    };
    child.stdout.on('data', collect(out, 'out'));
    child.stderr.on('data', collect(err, 'err'));
    child.stdin.on('error', () => undefined);
    child.stdin.end(o.stdin ?? '');
    const finish = (exitCode: number | null, signal: string | null) => {
      clearTimeout(timer);
      o.signal?.removeEventListener('abort', onAbort);
      killGroup(); // reap anything left in the group
      resolve({
        exitCode,
        signal,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        timedOut,
        truncated,
        durationMs: Date.now() - started,
      });
    };
    child.on('error', (e) => {
      err.push(Buffer.from(String(e.message)));
      finish(127, null);
    });
    // A backgrounded grandchild may hold the pipes open: reap the group as soon as the leader exits.
    child.on('exit', () => killGroup());
    child.on('close', (code, sig) => finish(code, sig));
  });
}
