import { constants } from 'node:fs';
import { mkdir, open, readdir, lstat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ToolError } from '../tool.port';
import { SANDBOX_UID } from '../workspace/workspace.locator';
import { runProcess } from './process.runner';
import type { DirEntry, ExecRequest, ExecResult, ExecutorProbe, FileRequest, ToolExecutor } from './tool-executor.port';

/**
 * Last resort when neither Docker nor bubblewrap is available: no namespace boundary, so what keeps
 * a command in line is the exec policy (applied before it gets here), workspace-only paths, a
 * deadline that kills the whole process group, output caps and rlimits (and an unprivileged uid
 * when the gateway runs as root).
 */
export class RestrictedNativeExecutor implements ToolExecutor {
  readonly kind = 'native' as const;
  readonly isolated = false;

  async probe(): Promise<ExecutorProbe> {
    return { available: true };
  }

  exec(req: ExecRequest, signal?: AbortSignal): Promise<ExecResult> {
    if (req.workspace.access === 'none') throw new ToolError('commands need a workspace (workspace.access is none)');
    const prefix: string[] = [];
    if (process.getuid?.() === 0) prefix.push('setpriv', `--reuid=${SANDBOX_UID}`, `--regid=${SANDBOX_UID}`, '--clear-groups', '--');
    prefix.push(
      'prlimit',
      '--core=0',
      `--nproc=${req.limits.pids}`,
      `--as=${req.limits.memoryMb * 1024 * 1024}`,
      `--fsize=${256 * 1024 * 1024}`,
      `--cpu=${Math.ceil(req.timeoutMs / 1000) + 1}`,
      '--',
    );
    const [file, ...args] = [...prefix, ...req.argv];
    return runProcess(file, args, {
      stdin: req.stdin,
      timeoutMs: req.timeoutMs,
      maxOutputBytes: req.maxOutputBytes,
      cwd: req.workspace.hostPath,
      env: { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: req.workspace.hostPath, LANG: 'C.UTF-8' },
      signal,
    });
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
