import { existsSync, lstatSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ToolError } from '../tool.port';
import { SANDBOX_WORKSPACE, Workspace } from '../workspace/workspace';

export interface WorkspacePath {
  /** Real absolute path on the host (symlinks inside the workspace resolved). */
  hostPath: string;
  /** The same path relative to the workspace root ("" for the root itself). */
  relative: string;
  exists: boolean;
}

const inside = (root: string, p: string) => {
  const rel = relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

/**
 * Resolves a tool path against the workspace and refuses anything that would leave it: `..`,
 * absolute paths elsewhere, symlinks (at any level) pointing out, device files, sockets and FIFOs.
 * The sandbox enforces the same boundary again; this check gives the model a clear reason.
 */
export function resolveWorkspacePath(ws: Workspace, input: string): WorkspacePath {
  if (ws.access === 'none') throw new ToolError('this agent has no workspace access (workspace.access: none)');
  if (!input || input.includes('\0')) throw new ToolError('path is empty or contains a NUL byte');
  let raw = input;
  if (raw === SANDBOX_WORKSPACE || raw.startsWith(`${SANDBOX_WORKSPACE}/`)) raw = raw.slice(SANDBOX_WORKSPACE.length + 1) || '.';
  const root = ws.hostPath;
  const wanted = isAbsolute(raw) && !raw.startsWith(root) ? raw : resolve(root, raw.replace(/^\/+/, ''));
  if (!inside(root, wanted)) throw new ToolError(`path "${input}" is outside the workspace`);

  // Walk up to the nearest existing ancestor and resolve it for real.
  let probe = wanted;
  while (!existsOrLink(probe)) probe = dirname(probe);
  let real: string;
  try {
    real = realpathSync(probe);
  } catch {
    throw new ToolError(`path "${input}" is a dangling symlink`);
  }
  if (!inside(root, real)) throw new ToolError(`path "${input}" leads outside the workspace through a symlink`);
  const exists = probe === wanted;
  const hostPath = exists ? real : join(real, relative(probe, wanted));
  if (exists) {
    const st = statSync(real);
    if (st.isCharacterDevice() || st.isBlockDevice()) throw new ToolError(`path "${input}" is a device file`);
    if (st.isSocket()) throw new ToolError(`path "${input}" is a socket`);
    if (st.isFIFO()) throw new ToolError(`path "${input}" is a FIFO`);
  }
  return { hostPath, relative: relative(root, hostPath).split(sep).join('/'), exists };
}

function existsOrLink(p: string): boolean {
  if (existsSync(p)) return true;
  try {
    lstatSync(p);
    return true; // a dangling symlink: realpath will refuse it
  } catch {
    return false;
  }
}
