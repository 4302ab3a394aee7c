import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { CliStartError } from './cli-start-error';

const run = promisify(execFile);
const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => existsSync(p));

/** How to start a CLI as another operating-system user: the program to exec first, and that user's home. */
export interface RunAs {
  /** `setpriv` and its arguments, ending in `--`: the CLI's command and arguments follow. */
  prefix: string[];
  home: string;
  uid: number;
  gid: number;
}

/** Why a CLI cannot be started as its configured user; its message is what the chat is told. */
export class CliUserError extends CliStartError {}

/**
 * `clis.<name>.user` as a `setpriv` prefix: the user's uid, primary group and supplementary groups,
 * with no_new_privs (a setuid program such as sudo cannot take the rights back). Needs the gateway to
 * run as root; a gateway that is not root refuses rather than start the CLI with its own rights.
 */
export async function runAsUser(cli: string, user: string): Promise<RunAs> {
  const entry = await run('getent', ['passwd', user], { timeout: 5000 }).then(
    (r) => r.stdout.split('\n')[0],
    () => '',
  );
  const [name, , uid, gid, , home] = entry.split(':');
  if (!name || !/^\d+$/.test(uid) || !/^\d+$/.test(gid)) {
    throw new CliUserError(
      `${cli} is configured to run as user "${user}", and this machine has no such user. Create it or change clis.${cli}.user.`,
    );
  }
  const me = process.getuid?.();
  if (me !== 0 && String(me) !== uid) {
    throw new CliUserError(
      `${cli} is configured to run as ${name} (uid ${uid}), but the gateway runs as uid ${me} and cannot start a program as another user. ` +
        `Run the gateway as root (it drops to ${name} for the CLI only) or remove clis.${cli}.user.`,
    );
  }
  if (!SETPRIV) throw new CliUserError(`${cli} is configured to run as ${name}, which needs setpriv (util-linux): install it.`);
  return {
    prefix: [SETPRIV, `--reuid=${uid}`, `--regid=${gid}`, '--init-groups', '--no-new-privs', '--'],
    home: home && home !== '/nonexistent' ? home : '/tmp',
    uid: Number(uid),
    gid: Number(gid),
  };
}
