import { lstatSync, mkdirSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { NestclawError, replaceFileWhole } from '@nestclaw/common';
import { resolveWorkspacePath } from '@nestclaw/tool';

/**
 * Replaces `relPath` under an agent's workspace `root` whole, for the control UI's editors (bootstrap
 * files, skills). Every level is resolved the way the file tools resolve theirs, so a folder that is a
 * link out of the workspace is refused; the last level must be a regular file or nothing (a link there
 * is refused, not followed); missing folders are created; the text is written beside the file and
 * renamed over it, so a reader sees the old text or the new. Throws a `conflict` saying what to fix.
 */
export function replaceWorkspaceFile(root: string, relPath: string, content: string): string {
  const lexical = join(root, relPath);
  const existing = kindOf(lexical);
  if (existing && existing !== 'file')
    throw new NestclawError('conflict', `${relPath} is a ${existing}, not a regular file: it is not replaced from here. Fix it in ${root}`);
  let hostPath: string;
  try {
    mkdirSync(root, { recursive: true, mode: 0o770 });
    hostPath = resolveWorkspacePath({ hostPath: realpathSync(root), access: 'rw' }, relPath).hostPath;
    mkdirSync(dirname(hostPath), { recursive: true, mode: 0o770 });
    // The sandbox shares the workspace: a folder swapped for a link between the check and the write
    // would take the write outside. Checked again once the folders exist.
    if (realpathSync(dirname(hostPath)) !== dirname(hostPath)) throw new Error('a folder on the path changed into a link');
    replaceFileWhole(hostPath, content, 0o660);
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    throw new NestclawError('conflict', `${relPath} could not be written in ${root}: ${why}`);
  }
  return lexical;
}

function kindOf(path: string): 'file' | 'symlink' | 'directory' | 'special file' | undefined {
  try {
    const st = lstatSync(path);
    return st.isSymbolicLink() ? 'symlink' : st.isFile() ? 'file' : st.isDirectory() ? 'directory' : 'special file';
  } catch {
    return undefined;
  }
}
