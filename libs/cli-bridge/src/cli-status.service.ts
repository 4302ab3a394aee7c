import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestclaw/config';
import { CliBindings } from './binding/cli-bindings';
import { CliBridge } from './cli-bridge.service';
import { sessionPrefix, CliSessions } from './session/cli-sessions';

export interface CliSessionStatus {
  /** The tmux session on nestclaw's socket (`nestclaw-<cli>-<n>`). */
  name: string;
  /** `exited`: a chat is still bound to it but the CLI under it ended (`/cli restart` starts it again). */
  state: 'running' | 'exited';
  /** Messages sent to it and not yet answered, the one it is on included. */
  inFlight: number;
  workDir: string | null;
  /** Chats whose messages go to this session, and who bound each. */
  boundChats: { sessionKey: string; boundBy: string }[];
}

export interface CliStatus {
  name: string;
  kind: string;
  command: string;
  allowedDirs: string[];
  /** Who besides the owner may drive it. */
  allowFrom: string[];
  sessions: CliSessionStatus[];
}

/**
 * What `nestclaw cli list` and `GET /v1/clis` show: every configured CLI with its tmux sessions on
 * nestclaw's socket (running or only still bound), what each is busy with and which chats drive it.
 * The environment is left out: its values are secrets.
 */
@Injectable()
export class CliStatusService {
  constructor(
    private readonly config: ConfigService,
    private readonly bindings: CliBindings,
    private readonly sessions: CliSessions,
    private readonly bridge: CliBridge,
  ) {}

  async list(): Promise<CliStatus[]> {
    const running = new Set(await this.sessions.running());
    const bound = this.bindings.all();
    return Object.entries(this.config.get().clis).map(([name, cfg]) => {
      const prefix = sessionPrefix(name);
      const names = new Set([...running, ...bound.map((b) => b.tmuxSession)].filter((n) => n.startsWith(prefix)));
      const sessions = [...names].sort(byNumber(prefix)).map((session): CliSessionStatus => {
        const chats = bound.filter((b) => b.tmuxSession === session);
        return {
          name: session,
          state: running.has(session) ? 'running' : 'exited',
          inFlight: this.bridge.inFlight(session),
          workDir: chats[0]?.workDir ?? null,
          boundChats: chats.map((b) => ({ sessionKey: b.sessionKey, boundBy: b.boundBy })),
        };
      });
      return { name, kind: cfg.kind, command: cfg.command, allowedDirs: cfg.allowed_dirs, allowFrom: cfg.allow_from, sessions };
    });
  }
}

const byNumber = (prefix: string) => (a: string, b: string) => Number(a.slice(prefix.length)) - Number(b.slice(prefix.length));
