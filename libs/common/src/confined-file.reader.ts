import { closeSync, constants, fstatSync, lstatSync, openSync, readlinkSync, readSync, realpathSync, Stats } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';

/** A file read from inside its root: at most `maxBytes` of it, never the whole of a larger one. */
export interface ConfinedFile {
  /** The first bytes (all of them when `omittedBytes` is 0), decoded as UTF-8. */
  head: string;
  /** The last `tailBytes` when the file was larger than `maxBytes` and a tail was asked for; else "". */
  tail: string;
  /** Bytes in the file. */
  size: number;
  /** Bytes between head and tail that were not read (0: the whole file is in `head`). */
  omittedBytes: number;
  /** device:inode:size:mtime of the file read, for callers that cache by it. */
  stamp: string;
}

export type ConfinedRead = { ok: true; file: ConfinedFile } | { ok: false; missing: boolean; reason: string };

export interface ConfinedReadOptions {
  /** The most bytes read from the file. */
  maxBytes: number;
  /** Of those, how many come from the end of a file larger than maxBytes (default 0: head only). */
  tailBytes?: number;
}

const inside = (root: string, p: string) => {
  const rel = relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

const refused = (reason: string): ConfinedRead => ({ ok: false, missing: false, reason });

/** The stamp a cache compares with `ConfinedFile.stamp` (follows links: a swapped-in link changes the inode). */
export function fileStamp(st: { dev: number; ino: number; size: number; mtimeMs: number }): string {
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`;
}

/**
 * Reads `relPath` under `root` the way the file tools do: the path is resolved for real and must stay
 * inside the root (a symlink at any level pointing out is refused), the file must be a regular file
 * (a FIFO would block, a device could be endless), the last level is opened with O_NOFOLLOW and
 * O_NONBLOCK, and on Linux the opened descriptor's real path is checked again, so a directory swapped
 * for a link between the check and the open is caught. Only `maxBytes` are read: a huge file costs
 * no more memory than a small one. Never throws; the gateway reads these files as its own user,
 * which can see secrets the sandbox that wrote them cannot.
 */
export function readConfinedFile(root: string, relPath: string, options: ConfinedReadOptions): ConfinedRead {
  if (!relPath || relPath.includes('\0')) return refused('the path is empty or contains a NUL byte');
  let rootReal: string;
  let real: string;
  try {
    rootReal = realpathSync(root);
  } catch (e) {
    return { ok: false, missing: true, reason: `cannot open ${root}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` };
  }
  const wanted = resolve(rootReal, relPath);
  if (!inside(rootReal, wanted)) return refused('the path is outside its folder');
  try {
    real = realpathSync(wanted);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') return refused(`cannot resolve it (${code ?? (e as Error).message})`);
    // Missing, or a symlink pointing at something missing: neither has content, but say which.
    try {
      if (lstatSync(wanted).isSymbolicLink()) return refused('it is a dangling symlink');
    } catch {
      // really missing
    }
    return { ok: false, missing: true, reason: 'it does not exist' };
  }
  if (!inside(rootReal, real)) return refused('it is a symlink leading outside its folder');
  let fd: number;
  try {
    // Checked before opening too: opening a FIFO or a device can itself have effects.
    const kind = lstatSync(real);
    if (!kind.isFile()) return refused(`it is not a regular file (${describe(kind)})`);
    fd = openSync(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (e) {
    return refused(`cannot open it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return refused(`it is not a regular file (${describe(st)})`);
    const opened = openedPath(fd);
    if (opened !== undefined && !inside(rootReal, opened)) return refused('it was moved outside its folder while being opened');
    const maxBytes = Math.max(0, Math.floor(options.maxBytes));
    const tailBytes = Math.min(maxBytes, Math.max(0, Math.floor(options.tailBytes ?? 0)));
    const stamp = fileStamp(st);
    if (st.size <= maxBytes) {
      const all = readAt(fd, 0, maxBytes);
      return { ok: true, file: { head: all.toString('utf8'), tail: '', size: all.length, omittedBytes: 0, stamp } };
    }
    const head = readAt(fd, 0, maxBytes - tailBytes);
    const tail = tailBytes ? readAt(fd, st.size - tailBytes, tailBytes) : Buffer.alloc(0);
    return {
      ok: true,
      file: {
        head: head.subarray(0, completeUtf8End(head)).toString('utf8'),
        tail: tail.subarray(utf8Start(tail)).toString('utf8'),
        size: st.size,
        omittedBytes: st.size - head.length - tail.length,
        stamp,
      },
    };
  } catch (e) {
    return refused(`cannot read it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  } finally {
    closeSync(fd);
  }
}

function readAt(fd: number, position: number, length: number): Buffer {
  const buf = Buffer.alloc(length);
  let got = 0;
  while (got < length) {
    const n = readSync(fd, buf, got, length - got, position + got);
    if (n === 0) break;
    got += n;
  }
  return buf.subarray(0, got);
}

/** Where the descriptor really points (Linux); undefined where /proc is not there to ask. */
function openedPath(fd: number): string | undefined {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return undefined;
  }
}

function describe(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  if (st.isSymbolicLink()) return 'a symlink';
  return 'not a file';
}

/** Length of `buf` without a UTF-8 sequence cut off at its end. */
function completeUtf8End(buf: Buffer): number {
  for (let i = buf.length - 1; i >= Math.max(0, buf.length - 4); i--) {
    const b = buf[i];
    if ((b & 0xc0) === 0x80) continue; // continuation byte: look further back for its lead
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return i + need <= buf.length ? buf.length : i;
  }
  return buf.length;
}

/** Offset of the first byte in `buf` that starts a UTF-8 sequence (skips a cut-off one). */
function utf8Start(buf: Buffer): number {
  let i = 0;
  while (i < Math.min(buf.length, 3) && (buf[i] & 0xc0) === 0x80) i++;
  return i;
}
