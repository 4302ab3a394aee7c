import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Past this many entries a workspace counts as over quota: it also bounds how long one poll takes. */
export const MAX_WORKSPACE_ENTRIES = 100_000;
/** How often a running command's workspace is measured. */
export const QUOTA_POLL_MS = 20;

export interface Usage {
  bytes: number;
  entries: number;
  /** True when counting stopped early (over `stopAt` bytes or too many entries). */
  over: boolean;
}

/**
 * Disk used by a directory tree (allocated blocks, so sparse files count as what they take),
 * without following symlinks. Stops as soon as it passes `stopAt`, so an over-quota tree is found
 * without walking all of it.
 */
export function measureUsage(dir: string, stopAt = Infinity): Usage {
  let bytes = 0;
  let entries = 0;
  const stack = [dir];
  while (stack.length) {
    const d = stack.pop()!;
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      continue; // removed while we looked, or not a directory any more
    }
    for (const name of names) {
      const p = join(d, name);
      let st;
      try {
        st = lstatSync(p);
      } catch {
        continue;
      }
      entries++;
      bytes += st.blocks * 512;
      if (st.isDirectory()) stack.push(p);
      if (bytes > stopAt || entries > MAX_WORKSPACE_ENTRIES) return { bytes, entries, over: true };
    }
  }
  return { bytes, entries, over: false };
}

export interface QuotaWatch {
  /** Set once the workspace went over quota (the run was aborted). */
  readonly exceeded: Usage | undefined;
  stop(): void;
}

/**
 * Measures the workspace every QUOTA_POLL_MS while a command runs and calls `onExceeded` (which
 * kills the run) the first time it is over `limitBytes`. Chosen over a loop-mounted filesystem
 * per workspace (exact, but needs root, loop devices and mount bookkeeping) and over a tmpfs
 * (not persistent); together with RLIMIT_FSIZE = the room left, the overshoot is what the
 * sandbox can write between two polls (see ADR 0004 for the measured figure).
 */
export function watchQuota(dir: string, limitBytes: number, onExceeded: (u: Usage) => void): QuotaWatch {
  let exceeded: Usage | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const poll = () => {
    if (stopped) return;
    const u = measureUsage(dir, limitBytes);
    if (u.over) {
      exceeded = u;
      onExceeded(u);
      return;
    }
    timer = setTimeout(poll, QUOTA_POLL_MS);
  };
  timer = setTimeout(poll, QUOTA_POLL_MS);
  return {
    get exceeded() {
      return exceeded;
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

export const mib = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MiB`;
