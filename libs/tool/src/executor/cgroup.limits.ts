import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExecLimits } from './tool-executor.port';

const ROOT = '/sys/fs/cgroup';

/**
 * A per-run cgroup (v1 pids/memory/cpu controllers, or v2 unified) holding the sandbox. Created only
 * when the host lets us write there (root, no systemd delegation needed); otherwise rlimits are all
 * there is, and the doctor says so.
 */
export class CgroupLimits {
  private constructor(
    /** cgroup.procs files to join. */
    readonly procFiles: string[],
    private readonly dirs: string[],
  ) {}

  static supported(): { ok: boolean; reason?: string } {
    try {
      if (existsSync(join(ROOT, 'cgroup.controllers'))) {
        const dir = join(ROOT, 'nestclaw');
        mkdirSync(dir, { recursive: true });
        return { ok: true };
      }
      for (const c of ['pids', 'memory']) {
        if (!existsSync(join(ROOT, c))) return { ok: false, reason: `cgroup v1 controller "${c}" is not mounted` };
        mkdirSync(join(ROOT, c, 'nestclaw'), { recursive: true });
      }
      return { ok: true };
    } catch (e) {
      return { ok: false, reason: `cannot create cgroups: ${(e as Error).message}` };
    }
  }

  /** Null when cgroups cannot be written here. */
  static create(id: string, limits: ExecLimits): CgroupLimits | null {
    if (!CgroupLimits.supported().ok) return null;
    const bytes = String(limits.memoryMb * 1024 * 1024);
    try {
      if (existsSync(join(ROOT, 'cgroup.controllers'))) {
        const dir = join(ROOT, 'nestclaw', id);
        mkdirSync(dir);
        tryWrite(join(dir, 'pids.max'), String(limits.pids));
        tryWrite(join(dir, 'memory.max'), bytes);
        tryWrite(join(dir, 'memory.swap.max'), '0');
        tryWrite(join(dir, 'cpu.max'), `${Math.round(limits.cpus * 100_000)} 100000`);
        return new CgroupLimits([join(dir, 'cgroup.procs')], [dir]);
      }
      const pids = join(ROOT, 'pids', 'nestclaw', id);
      const mem = join(ROOT, 'memory', 'nestclaw', id);
      mkdirSync(pids);
      mkdirSync(mem);
      writeFileSync(join(pids, 'pids.max'), String(limits.pids));
      writeFileSync(join(mem, 'memory.limit_in_bytes'), bytes);
      tryWrite(join(mem, 'memory.memsw.limit_in_bytes'), bytes);
      const dirs = [pids, mem];
      const cpuRoot = join(ROOT, 'cpu');
      if (existsSync(join(cpuRoot, 'cpu.cfs_quota_us'))) {
        const cpu = join(cpuRoot, 'nestclaw', id);
        mkdirSync(cpu, { recursive: true });
        tryWrite(join(cpu, 'cpu.cfs_period_us'), '100000');
        tryWrite(join(cpu, 'cpu.cfs_quota_us'), String(Math.round(limits.cpus * 100_000)));
        dirs.push(cpu);
      }
      return new CgroupLimits(
        dirs.map((d) => join(d, 'cgroup.procs')),
        dirs,
      );
    } catch {
      return null;
    }
  }

  /** SIGKILL every process still in the group. */
  killAll(): void {
    for (const f of this.procFiles) {
      let pids: string[] = [];
      try {
        pids = readFileSync(f, 'utf8').split('\n').filter(Boolean);
      } catch {
        continue;
      }
      for (const pid of pids) {
        try {
          process.kill(Number(pid), 'SIGKILL');
        } catch {
          // gone
        }
      }
    }
  }

  async remove(): Promise<void> {
    for (const d of this.dirs) {
      for (let i = 0; i < 50; i++) {
        this.killAll();
        try {
          rmdirSync(d);
          break;
        } catch {
          // processes may still be exiting
          await new Promise((r) => setTimeout(r, 10));
        }
      }
    }
  }
}

function tryWrite(file: string, value: string): void {
  try {
    writeFileSync(file, value);
  } catch {
    // controller not enabled here
  }
}
