import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, lchown, lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ToolError } from '../tool.port';
import { runProcess } from './process.runner';
import { SandboxedFileOps } from './sandboxed-file-ops';
import type { DirEntry, ExecRequest, ExecResult, ExecutorProbe, FileRequest, ToolExecutor } from './tool-executor.port';

/** Per-workspace uids live in [BASE, BASE + SPAN): far from any real account. */
const UID_BASE = 1_000_000_000;
const UID_SPAN = 1_000_000_000;

/** The uid a workspace's native commands run as: its own, so it cannot touch other workspaces. */
export function workspaceUid(hostPath: string): number {
  return UID_BASE + (createHash('sha256').update(hostPath).digest().readUInt32BE(0) % UID_SPAN);
}

/** Every process whose real uid is `uid` (setsid/double-forked children included). */
export function processesOf(uid: number): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const status = readFileSync(`/proc/${name}/status`, 'utf8');
      const m = /^Uid:\s+(\d+)/m.exec(status);
      if (m && Number(m[1]) === uid) pids.push(Number(name));
    } catch {
      // exited while we looked
    }
  }
  return pids;
}

/** SIGKILLs everything running as `uid` until nothing is left (a fork loop cannot outrun it for long). */
export async function killUid(uid: number): Promise<void> {
  for (let round = 0; round < 100; round++) {
    const pids = processesOf(uid);
    if (!pids.length) return;
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    await new Promise((r) => setTimeout(r, 5));
  }
}

/**
 * Commands on the host, for owners who opted in (`tools.sandbox: native` plus
 * `tools.native.acknowledge`) on a machine without Docker or bubblewrap. No namespaces, so:
 * - it needs root, to run each workspace's commands as a uid of their own (workspace 0700 owned by
 *   it): one run cannot read or write another workspace, or $NESTCLAW_HOME (the locator strips
 *   other users' access from everything there but the workspaces);
 * - runs in one workspace are serialized, and when a run ends or times out every process of that
 *   uid is killed (setsid and double-forked children included);
 * - rlimits bound processes (per uid), memory, file size and CPU time.
 * What it cannot do (documented in ADR 0004): hide the rest of the host's world-readable files and
 * processes, keep the network out (so `tools.exec.network: false` is refused for it), or stop
 * user namespaces where the kernel allows them.
 */
export class RestrictedNativeExecutor implements ToolExecutor {
  readonly kind = 'native' as const;
  readonly isolated = false;
  /** File tools run as the workspace's uid too, so a command cannot race them with a symlink. */
  private readonly files = new SandboxedFileOps(
    (r) => this.exec(r),
    (f) => f.workspace.hostPath,
  );
  private readonly queues = new Map<string, Promise<unknown>>();

  async probe(): Promise<ExecutorProbe> {
    if (process.platform !== 'linux') return { available: false, reason: 'the native executor needs Linux' };
    if (process.getuid?.() !== 0)
      return { available: false, reason: 'the native executor needs the gateway to run as root (to give each workspace its own uid)' };
    for (const bin of ['/usr/bin/setpriv', '/usr/bin/prlimit'])
      if (!existsSync(bin)) return { available: false, reason: `${bin} not found (apt-get install util-linux)` };
    return { available: true };
  }

  exec(req: ExecRequest, signal?: AbortSignal): Promise<ExecResult> {
    if (req.workspace.access === 'none') throw new ToolError('commands need a workspace (workspace.access is none)');
    // One run per workspace at a time: the end-of-run kill takes everything of the workspace's uid.
    const key = req.workspace.hostPath;
    const previous = this.queues.get(key) ?? Promise.resolve();
    const run = previous.catch(() => undefined).then(() => this.run(req, signal));
    this.queues.set(key, run);
    void run.finally(() => {
      if (this.queues.get(key) === run) this.queues.delete(key);
    });
    return run;
  }

  private async run(req: ExecRequest, signal?: AbortSignal): Promise<ExecResult> {
    const uid = workspaceUid(req.workspace.hostPath);
    await claimWorkspace(req.workspace.hostPath, uid, req.workspace.access === 'rw');
    const argv = [
      '/usr/bin/setpriv',
      `--reuid=${uid}`,
      `--regid=${uid}`,
      '--clear-groups',
      '--',
      '/usr/bin/prlimit',
      '--core=0',
      `--nproc=${req.limits.pids}`,
      `--as=${req.limits.memoryMb * 1024 * 1024}`,
      `--fsize=${req.maxFileBytes ?? 256 * 1024 * 1024}`,
      `--cpu=${Math.ceil(req.timeoutMs / 1000) + 1}`,
      '--',
      ...req.argv,
    ];
    const [file, ...args] = argv;
    // Every kill this run starts is awaited before the next run of the workspace (the same uid) may
    // start: a sweep still polling /proc would otherwise kill the next run's first process (seen
    // under CI load as a file write ending with no exit code).
    const sweeps: Promise<void>[] = [];
    try {
      return await runProcess(file, args, {
        stdin: req.stdin,
        timeoutMs: req.timeoutMs,
        maxOutputBytes: req.maxOutputBytes,
        cwd: req.workspace.hostPath,
        env: { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: req.workspace.hostPath, LANG: 'C.UTF-8' },
        signal,
        onKill: () => sweeps.push(killUid(uid)),
      });
    } finally {
      await Promise.all(sweeps);
      await killUid(uid);
    }
  }

  readFile(f: FileRequest, rel: string, maxBytes: number): Promise<string> {
    return this.files.readFile(f, rel, maxBytes);
  }

  writeFile(f: FileRequest, rel: string, content: string, append: boolean): Promise<void> {
    return this.files.writeFile(f, rel, content, append);
  }

  listDir(f: FileRequest, rel: string): Promise<DirEntry[]> {
    return this.files.listDir(f, rel);
  }
}

/** The workspace (and what is in it) belongs to its uid, mode 0700 (0500 when read-only). */
async function claimWorkspace(dir: string, uid: number, writable: boolean): Promise<void> {
  const st = await lstat(dir);
  if (!st.isDirectory()) throw new ToolError('the workspace is not a directory');
  if (st.uid !== uid) await chownTree(dir, uid);
  await chmod(dir, writable ? 0o700 : 0o500);
}

/** lchown throughout: a symlink in the workspace must never hand its target (/etc/shadow) to the uid. */
async function chownTree(dir: string, uid: number): Promise<void> {
  await lchown(dir, uid, uid);
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) await chownTree(p, uid);
    else await lchown(p, uid, uid).catch(() => undefined);
  }
}
