import { Injectable } from '@nestjs/common';
import { DatabaseService, mapDatabaseError } from '@nestclaw/db';

export interface CliBinding {
  sessionKey: string;
  cli: string;
  workDir: string;
  tmuxSession: string;
  boundBy: string;
  /** The message the CLI is on, written before it is typed (a restart then reads its answer instead of typing it again). */
  inFlight?: InFlight;
}

export interface InFlight {
  /** The chat message's inbound key (`telegram:<inbound id>`). */
  key: string;
  /** How many lines the screen (with its scrollback) had before the message was typed: its echo comes after. */
  mark: number;
}

const wrap = <T>(p: Promise<T>): Promise<T> =>
  p.catch((e: unknown) => {
    throw mapDatabaseError(e);
  });

/**
 * Chats bound to a CLI (`cli_bindings`). Read whole once at start-up (a row per bound chat, a handful):
 * routing then asks the bridge's copy, so a plain chat message costs no statement for it.
 */
@Injectable()
export class CliBindingRepository {
  constructor(private readonly db: DatabaseService) {}

  async all(): Promise<CliBinding[]> {
    const { rows } = await wrap(
      this.db.pool.query<{
        session_key: string;
        cli: string;
        work_dir: string;
        tmux_session: string;
        bound_by: string;
        in_flight: InFlight | null;
      }>(`SELECT session_key, cli, work_dir, tmux_session, bound_by, in_flight FROM cli_bindings`),
    );
    return rows.map((r) => ({
      sessionKey: r.session_key,
      cli: r.cli,
      workDir: r.work_dir,
      tmuxSession: r.tmux_session,
      boundBy: r.bound_by,
      inFlight: r.in_flight ?? undefined,
    }));
  }

  async bind(b: CliBinding): Promise<void> {
    await wrap(
      this.db.pool.query(
        `INSERT INTO cli_bindings (session_key, cli, work_dir, tmux_session, bound_by) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (session_key) DO UPDATE SET cli = $2, work_dir = $3, tmux_session = $4, bound_by = $5, bound_at = now(), in_flight = NULL`,
        [b.sessionKey, b.cli, b.workDir, b.tmuxSession, b.boundBy],
      ),
    );
  }

  async unbind(sessionKey: string): Promise<void> {
    await wrap(this.db.pool.query(`DELETE FROM cli_bindings WHERE session_key = $1`, [sessionKey]));
  }

  /** Before typing (`inFlight`) and once answered (`null`). */
  async setInFlight(sessionKey: string, inFlight: InFlight | null): Promise<void> {
    await wrap(
      this.db.pool.query(`UPDATE cli_bindings SET in_flight = $2 WHERE session_key = $1`, [
        sessionKey,
        inFlight && JSON.stringify(inFlight),
      ]),
    );
  }
}
