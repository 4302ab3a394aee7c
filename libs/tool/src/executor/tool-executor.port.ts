import type { Workspace } from '../workspace/workspace';

export type ExecutorKind = 'docker' | 'bubblewrap' | 'native';

export interface ExecLimits {
  memoryMb: number;
  pids: number;
  cpus: number;
}

export interface ExecRequest {
  /** Program and arguments, run with the workspace as working directory. */
  argv: string[];
  stdin?: string;
  workspace: Workspace;
  timeoutMs: number;
  /** Give the process a network (off: no network namespace at all). */
  network: boolean;
  maxOutputBytes: number;
  /** Largest file the command may write (RLIMIT_FSIZE); the workspace quota's room left. */
  maxFileBytes?: number;
  limits: ExecLimits;
}

export interface ExecResult {
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  truncated: boolean;
  durationMs: number;
}

export interface DirEntry {
  name: string;
  type: 'file' | 'dir' | 'symlink' | 'other';
  size: number;
}

export interface ExecutorProbe {
  available: boolean;
  /** Why not, when unavailable. */
  reason?: string;
}

/**
 * The only thing in nestclaw that starts processes or touches workspace files for a tool. `isolated`
 * is true for real boundaries (namespaces or containers), false for the restricted native fallback.
 */
export interface ToolExecutor {
  /** `files-only`: no sandbox, so the file tools work and no command runs. */
  readonly kind: ExecutorKind | 'files-only';
  readonly isolated: boolean;
  probe(): Promise<ExecutorProbe>;
  exec(req: ExecRequest, signal?: AbortSignal): Promise<ExecResult>;
  /** `relPath` has been checked by resolveWorkspacePath. */
  readFile(req: FileRequest, relPath: string, maxBytes: number): Promise<string>;
  writeFile(req: FileRequest, relPath: string, content: string, append: boolean): Promise<void>;
  listDir(req: FileRequest, relPath: string): Promise<DirEntry[]>;
}

export type FileRequest = Pick<ExecRequest, 'workspace' | 'limits' | 'timeoutMs'>;
