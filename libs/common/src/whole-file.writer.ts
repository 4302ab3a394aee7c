import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs';

/**
 * Replaces the file at `path` with `content`, whole or not at all: written to `<path>.<pid>.saving`
 * beside it, then renamed over it, so a reader (or a crash) sees the old text or the new one. A link
 * at `path` is replaced, never followed; the temporary file is created exclusively, so a link put in
 * its place is not followed either. The new bytes are on disk before the rename (fsync), so a power
 * cut cannot leave an empty file under the old name. Throws the filesystem's error, leaving `path` as it was.
 */
export function replaceFileWhole(path: string, content: string, mode: number): void {
  const temporary = `${path}.${process.pid}.saving`;
  // A stale one from a crash of this pid (a container's gateway is often pid 1); a link is removed, not followed.
  rmSync(temporary, { force: true });
  try {
    const fd = openSync(temporary, 'wx', mode);
    try {
      writeFileSync(fd, content);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, path);
  } catch (e) {
    try {
      rmSync(temporary, { force: true });
    } catch {
      // Not a file we can remove (a directory by that name): the error below is what matters.
    }
    throw e;
  }
}
