/**
 * Memory of a process and everything it started, three ways (Linux /proc):
 *   - summed RSS: each process's resident pages added up. An upper bound: a page shared by n
 *     processes (the postgres binary's code, shared buffers, a forked backend's untouched copy of
 *     the postmaster) counts n times, so the embedded server's 7 processes look 3× their real size.
 *   - distinct pages: the physical pages mapped by any process of the tree, each counted once
 *     (page frame numbers from /proc/<pid>/pagemap; readable by root only). What the tree costs the
 *     machine's RAM.
 *   - summed PSS: shared pages split between *every* process using them, including ones outside the
 *     tree (other node or postgres processes of the machine using the same binaries), so it
 *     undercounts on a busy machine.
 */
import { closeSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';

export interface TreeMemory {
  rssMb: number;
  /** undefined when page frame numbers are hidden (not root). */
  distinctMb: number | undefined;
  pssMb: number;
  /** The root process alone (RSS), and its descendants (the embedded database) summed and distinct. */
  rootRssMb: number;
  childrenRssMb: number;
  childrenDistinctMb: number | undefined;
  perProcessRssMb: number[];
}

const round = (x: number) => Math.round(x * 10) / 10;
const MB = 1024 * 1024;

/** The pid and all its descendants (from /proc/<pid>/stat's ppid field). */
export function processTree(root: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // comm may contain spaces and parentheses: fields resume after the last ')'.
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // exited meanwhile
    }
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) for (const [pid, ppid] of parents) if (ppid === tree[i]) tree.push(pid);
  return tree;
}

function statusKb(pid: number, file: string, pattern: RegExp): number {
  try {
    return Number(pattern.exec(readFileSync(`/proc/${pid}/${file}`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** Adds the page frame numbers of every present page of pid to frames; false if the kernel hides them. */
function addFrames(pid: number, frames: Set<bigint>): boolean {
  let smaps: string;
  let fd: number;
  try {
    smaps = readFileSync(`/proc/${pid}/smaps`, 'utf8');
    fd = openSync(`/proc/${pid}/pagemap`, 'r');
  } catch {
    return true; // exited meanwhile
  }
  let visible = true;
  try {
    let range: [number, number] | undefined;
    for (const line of smaps.split('\n')) {
      const head = /^([0-9a-f]+)-([0-9a-f]+) /.exec(line);
      if (head) {
        range = [parseInt(head[1], 16), parseInt(head[2], 16)];
        continue;
      }
      // Only mappings with resident pages (the gateway reserves gigabytes it never touches).
      if (!range || !/^Rss:\s+[1-9]/.test(line)) continue;
      const pages = (range[1] - range[0]) / 4096;
      const entries = Buffer.alloc(pages * 8);
      readSync(fd, entries, 0, entries.length, (range[0] / 4096) * 8);
      for (let i = 0; i < pages; i++) {
        const entry = entries.readBigUInt64LE(i * 8);
        if (!(entry >> 63n)) continue; // not present
        const frame = entry & ((1n << 55n) - 1n);
        if (frame === 0n) visible = false;
        else frames.add(frame);
      }
    }
  } catch {
    // a mapping changed under us: what was read so far counts
  } finally {
    closeSync(fd);
  }
  return visible;
}

function distinctMb(pids: number[]): number | undefined {
  const frames = new Set<bigint>();
  let visible = true;
  for (const pid of pids) visible = addFrames(pid, frames) && visible;
  return visible ? round((frames.size * 4096) / MB) : undefined;
}

export function treeMemory(root: number): TreeMemory {
  const pids = processTree(root);
  const rss = pids.map((pid) => statusKb(pid, 'status', /VmRSS:\s+(\d+) kB/) / 1024);
  const children = pids.slice(1);
  return {
    rssMb: round(rss.reduce((a, b) => a + b, 0)),
    distinctMb: distinctMb(pids),
    pssMb: round(pids.reduce((a, pid) => a + statusKb(pid, 'smaps_rollup', /^Pss:\s+(\d+) kB/m), 0) / 1024),
    rootRssMb: round(rss[0]),
    childrenRssMb: round(rss.slice(1).reduce((a, b) => a + b, 0)),
    childrenDistinctMb: children.length ? distinctMb(children) : 0,
    perProcessRssMb: rss.map(round),
  };
}
