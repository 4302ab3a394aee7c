import { existsSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { SANDBOX_WORKSPACE } from '../workspace/workspace';
import { SANDBOX_UID } from '../workspace/workspace.locator';
import { CgroupLimits } from './cgroup.limits';
import { SANDBOX_PATH, sandboxBaseArgs } from './sandbox-base.args';
import { runProcess } from './process.runner';
import { SandboxedFileOps } from './sandboxed-file-ops';
import type { DirEntry, ExecRequest, ExecResult, ExecutorProbe, FileRequest, ToolExecutor } from './tool-executor.port';

const DEFAULT_MAX_FILE_BYTES = 256 * 1024 * 1024;

/**
 * Linux namespaces through bubblewrap: every namespace unshared (no network unless allowed), system
 * directories read-only, the workspace the only writable bind, tmpfs /tmp, no nested user
 * namespaces, killed with its parent, run as an unprivileged uid, and (where the host lets us)
 * a per-run cgroup for memory, processes and CPU; rlimits otherwise.
 */
export class BubblewrapExecutor implements ToolExecutor {
  readonly kind = 'bubblewrap' as const;
  readonly isolated = true;
  private readonly files = new SandboxedFileOps((r) => this.exec(r));
  private probed?: Promise<ExecutorProbe>;

  constructor(private readonly bwrapPath = '/usr/bin/bwrap') {}

  probe(): Promise<ExecutorProbe> {
    return (this.probed ??= this.doProbe());
  }

  private async doProbe(): Promise<ExecutorProbe> {
    if (process.platform !== 'linux') return { available: false, reason: 'bubblewrap needs Linux' };
    if (!existsSync(this.bwrapPath)) return { available: false, reason: `${this.bwrapPath} not found (apt-get install bubblewrap)` };
    const r = await this.exec({
      argv: ['true'],
      workspace: { hostPath: '/', access: 'none' },
      timeoutMs: 5000,
      network: false,
      maxOutputBytes: 4096,
      limits: { memoryMb: 64, pids: 16, cpus: 1 },
    });
    if (r.exitCode === 0) return { available: true };
    return { available: false, reason: `bwrap cannot create namespaces here: ${r.stderr.trim().slice(0, 200) || `exit ${r.exitCode}`}` };
  }

  /** The bwrap command line for a request (exposed for tests and the doctor). */
  bwrapArgs(req: ExecRequest): string[] {
    const a = sandboxBaseArgs(req.network);
    let cwd = '/tmp';
    if (req.workspace.access !== 'none') {
      a.push(req.workspace.access === 'rw' ? '--bind' : '--ro-bind', req.workspace.hostPath, SANDBOX_WORKSPACE);
      cwd = SANDBOX_WORKSPACE;
    }
    a.push('--remount-ro', '/', '--chdir', cwd, '--clearenv');
    a.push('--setenv', 'PATH', SANDBOX_PATH, '--setenv', 'HOME', cwd, '--setenv', 'LANG', 'C.UTF-8', '--setenv', 'TMPDIR', '/tmp');
    return [...a, '--', ...req.argv];
  }

  async exec(req: ExecRequest, signal?: AbortSignal): Promise<ExecResult> {
    const id = randomUUID();
    const cgroup = CgroupLimits.create(id, req.limits);
    const inner: string[] = [];
    // Process limits only bite for a non-root host uid: drop to it when we are root.
    if (process.getuid?.() === 0) inner.push('setpriv', `--reuid=${SANDBOX_UID}`, `--regid=${SANDBOX_UID}`, '--clear-groups', '--');
    const rlimits = ['--core=0', `--fsize=${req.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES}`];
    if (!cgroup) rlimits.push(`--nproc=${req.limits.pids}`, `--as=${req.limits.memoryMb * 1024 * 1024}`);
    // The options go through fd 3, so the sandbox's PID 1 (bwrap) shows no host paths in /proc/1/cmdline.
    const all = this.bwrapArgs(req);
    const split = all.indexOf('--');
    inner.push('prlimit', ...rlimits, '--', this.bwrapPath, '--args', '3', ...all.slice(split));
    let file: string;
    let args: string[];
    if (cgroup) {
      // Join the cgroups first, then exec into the sandbox: nothing runs outside the limits.
      const join = 'n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1" || exit 125; shift; n=$((n-1)); done; exec "$@"';
      file = '/bin/sh';
      args = ['-c', join, 'nestclaw-sandbox', String(cgroup.procFiles.length), ...cgroup.procFiles, ...inner];
    } else {
      [file, ...args] = inner;
    }
    try {
      return await runProcess(file, args, {
        stdin: req.stdin,
        timeoutMs: req.timeoutMs,
        maxOutputBytes: req.maxOutputBytes,
        env: { PATH: SANDBOX_PATH },
        signal,
        fd3: Buffer.from(
          all
            .slice(0, split)
            .map((a) => `${a}\0`)
            .join(''),
        ),
        onKill: () => cgroup?.killAll(),
      });
    } finally {
      await cgroup?.remove();
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
