import { realpathSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { SANDBOX_UID } from '../workspace/workspace.locator';
import { CgroupLimits } from './cgroup.limits';
import { SANDBOX_PATH, sandboxBaseArgs } from './sandbox-base.args';
import { launchServerProcess, ServerProcess } from './server-process.launcher';
import type { ExecLimits } from './tool-executor.port';

/** Masked with /dev/null unless the server may run commands. */
const SHELLS = ['/bin/sh', '/bin/bash', '/bin/dash', '/bin/zsh', '/usr/bin/sh', '/usr/bin/bash', '/usr/bin/dash', '/usr/bin/zsh'];

export interface SandboxBind {
  hostPath: string;
  /** Where it appears inside the sandbox. */
  path: string;
  mode: 'ro' | 'rw';
}

export interface SandboxedServerSpec {
  argv: string[];
  binds: readonly SandboxBind[];
  network: boolean;
  /** Leave shells visible (a server allowed to run commands). */
  shell: boolean;
  /** Besides PATH, HOME (/tmp), LANG and TMPDIR. */
  env: Record<string, string>;
  cwd: string;
  limits: ExecLimits;
}

/** How the server is limited, for its status line. */
export interface SandboxedServer extends ServerProcess {
  /** Memory and process limits by a cgroup; false: rlimits only (no cgroup could be made here). */
  readonly cgroup: boolean;
}

/**
 * A long-running server (an untrusted plugin) under the same bubblewrap sandbox the tools use: every
 * namespace unshared (the network too unless allowed), system directories read-only, only the binds
 * given, tmpfs /tmp, an unprivileged uid, shells masked unless allowed, and a cgroup for memory,
 * processes and CPU where the host allows it. Stopping it stops everything it started.
 */
export function launchSandboxedServer(spec: SandboxedServerSpec, bwrapPath = '/usr/bin/bwrap'): SandboxedServer {
  const a = sandboxBaseArgs(spec.network);
  for (const b of spec.binds) a.push(b.mode === 'rw' ? '--bind' : '--ro-bind', b.hostPath, b.path);
  if (!spec.shell) {
    const masked = new Set<string>();
    for (const s of SHELLS) {
      try {
        const real = realpathSync(s);
        if (!masked.has(real) && !real.includes('/busybox')) masked.add(real);
      } catch {
        // not installed
      }
    }
    for (const real of masked) a.push('--ro-bind', '/dev/null', real);
  }
  a.push('--remount-ro', '/', '--chdir', spec.cwd, '--clearenv');
  a.push('--setenv', 'PATH', SANDBOX_PATH, '--setenv', 'HOME', '/tmp', '--setenv', 'LANG', 'C.UTF-8', '--setenv', 'TMPDIR', '/tmp');
  for (const [k, v] of Object.entries(spec.env)) a.push('--setenv', k, v);

  const cgroup = CgroupLimits.create(`server-${randomUUID()}`, spec.limits);
  const inner: string[] = [];
  if (process.getuid?.() === 0) inner.push('setpriv', `--reuid=${SANDBOX_UID}`, `--regid=${SANDBOX_UID}`, '--clear-groups', '--');
  const rlimits = ['--core=0'];
  if (!cgroup) rlimits.push(`--nproc=${spec.limits.pids}`);
  inner.push('prlimit', ...rlimits, '--', bwrapPath, ...a, '--', ...spec.argv);
  let command: string;
  let args: string[];
  if (cgroup) {
    // Join the cgroups first, then exec into the sandbox: nothing runs outside the limits.
    const join = 'n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1" || exit 125; shift; n=$((n-1)); done; exec "$@"';
    command = '/bin/sh';
    args = ['-c', join, 'nestclaw-sandbox', String(cgroup.procFiles.length), ...cgroup.procFiles, ...inner];
  } else {
    [command, ...args] = inner;
  }
  const proc = launchServerProcess({ command, args, env: { PATH: SANDBOX_PATH } });
  proc.onExit(() => {
    cgroup?.killAll();
    void cgroup?.remove();
  });
  return Object.assign(proc, { cgroup: !!cgroup });
}
