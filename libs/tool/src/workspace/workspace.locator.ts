import { Injectable } from '@nestjs/common';
import { chmodSync, chownSync, lstatSync, mkdirSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { AgentConfig, ConfigService } from '@nestclaw/config';
import type { ToolContext } from '../tool.port';
import { Workspace } from './workspace';

/** uid/gid sandboxed processes run as when the gateway itself runs as root. */
export const SANDBOX_UID = 65534;

const safeSegment = (s: string) => {
  const seg = s.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 100);
  return seg === '' || seg === '.' || seg === '..' ? '_' : seg;
};

/**
 * `$NESTCLAW_HOME/workspaces/{agents/<agent>|sessions/<session>|shared}`: the default scope is the
 * agent, so files persist across its sessions.
 */
@Injectable()
export class WorkspaceLocator {
  private homeProtected = false;

  constructor(private readonly config: ConfigService) {}

  root(): string {
    return join(this.config.home, 'workspaces');
  }

  /** An agent's own folder (its bootstrap files and skills live here whatever its tools' scope). */
  agentDir(agentId: string): string {
    return join(this.root(), 'agents', safeSegment(agentId));
  }

  forContext(ctx: ToolContext, agent: AgentConfig): Workspace {
    const { scope, access } = agent.workspace;
    const dir =
      scope === 'shared'
        ? join(this.root(), 'shared')
        : scope === 'session'
          ? join(this.root(), 'sessions', safeSegment(ctx.sessionId))
          : join(this.root(), 'agents', safeSegment(ctx.agentId));
    mkdirSync(dir, { recursive: true, mode: 0o770 });
    // The sandbox runs as an unprivileged uid; when we are root it must own its workspace to write.
    if (process.getuid?.() === 0) {
      if (!this.homeProtected) protectHome(this.config.home);
      this.homeProtected = true;
      // The native executor gives a workspace its own uid; everything else runs as SANDBOX_UID.
      if (statSync(dir).uid === 0) chownSync(dir, SANDBOX_UID, SANDBOX_UID);
      allowTraversal(dir, this.config.home);
    }
    return { hostPath: realpathSync(dir), access };
  }
}

/**
 * Other users (every sandbox and native uid) may pass through $NESTCLAW_HOME to reach their
 * workspace, but not read or enter anything else there: the database, its WAL, tokens, logs.
 */
export function protectHome(home: string): void {
  for (const name of readdirSync(home)) {
    // Workspaces and plugin folders are opened by sandboxed uids (plugins hold code, not secrets).
    if (name === 'workspaces' || name === 'plugins') continue;
    const p = join(home, name);
    const st = lstatSync(p);
    if (!st.isSymbolicLink() && st.mode & 0o007) chmodSync(p, st.mode & 0o7770);
  }
}

/**
 * bubblewrap opens the workspace as the sandbox uid, which must be able to pass through the
 * directories above it. Adds search-only permission (o+x: no listing) from the workspace up to
 * $NESTCLAW_HOME; secrets there keep their own 0600 modes.
 */
export function allowTraversal(dir: string, home: string): void {
  for (let d = dirname(dir); ; d = dirname(d)) {
    const mode = statSync(d).mode;
    if (!(mode & 0o001)) chmodSync(d, (mode & 0o7777) | 0o001);
    if (relative(home, d) === '' || dirname(d) === d) break;
  }
}
