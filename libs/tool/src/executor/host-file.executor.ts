import { constants } from 'node:fs';
import { lstat, mkdir, open, readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ToolError } from '../tool.port';
import type { DirEntry, ExecRequest, ExecResult, ExecutorProbe, FileRequest, ToolExecutor } from './tool-executor.port';

/**
 * The file tools' executor when no sandbox is available: the gateway reads and writes the files
 * itself and runs no commands at all (no sandbox, no shell). The path was checked by
 * resolveWorkspacePath (every level, symlinks included); O_NOFOLLOW refuses a symlink at the last
 * level, and no command can run next to it to swap one in.
 */
export class HostFileExecutor implements ToolExecutor {
  readonly kind = 'files-only' as const;
  readonly isolated = false;

  async probe(): Promise<ExecutorProbe> {
    return { available: true };
  }

  exec(_req: ExecRequest): Promise<ExecResult> {
    throw new ToolError('commands need a sandbox: install bubblewrap (apt-get install bubblewrap) or start Docker');
  }

  async readFile(f: FileRequest, rel: string, maxBytes: number): Promise<string> {
    const fh = await open(join(f.workspace.hostPath, rel), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(
      (e: Error) => {
        throw new ToolError(`cannot read ${rel}: ${e.message}`);
      },
    );
    try {
      if (!(await fh.stat()).isFile()) throw new ToolError(`${rel} is not a regular file`);
      const buf = Buffer.alloc(maxBytes);
      const { bytesRead } = await fh.read(buf, 0, maxBytes, 0);
      return buf.subarray(0, bytesRead).toString('utf8');
    } finally {
      await fh.close();
    }
  }

  async writeFile(f: FileRequest, rel: string, content: string, append: boolean): Promise<void> {
    if (f.workspace.access !== 'rw') throw new ToolError('the workspace is read-only');
    const path = join(f.workspace.hostPath, rel);
    await mkdir(dirname(path), { recursive: true });
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | (append ? constants.O_APPEND : constants.O_TRUNC);
    const fh = await open(path, flags, 0o664).catch((e: Error) => {
      throw new ToolError(`cannot write ${rel}: ${e.message}`);
    });
    try {
      await fh.writeFile(content);
    } finally {
      await fh.close();
    }
  }

  async listDir(f: FileRequest, rel: string): Promise<DirEntry[]> {
    const dir = join(f.workspace.hostPath, rel);
    const names = await readdir(dir).catch((e: Error) => {
      throw new ToolError(`cannot list ${rel || '.'}: ${e.message}`);
    });
    const out: DirEntry[] = [];
    for (const name of names.sort()) {
      const st = await lstat(join(dir, name));
      const type = st.isSymbolicLink() ? 'symlink' : st.isDirectory() ? 'dir' : st.isFile() ? 'file' : 'other';
      out.push({ name, type, size: st.size });
    }
    return out;
  }
}
