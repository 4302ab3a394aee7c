import { existsSync, lstatSync, readlinkSync } from 'node:fs';
import { SANDBOX_UID } from '../workspace/workspace.locator';

const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib64', '/lib32', '/libx32'];
const ETC_FILES = ['/etc/alternatives', '/etc/ld.so.cache', '/etc/localtime'];
const NET_ETC_FILES = ['/etc/resolv.conf', '/etc/hosts', '/etc/nsswitch.conf', '/etc/ssl', '/etc/ca-certificates'];
/** /tmp is memory: 64 MiB like Docker's, so it cannot be the way around the workspace quota. */
const TMP_BYTES = 64 * 1024 * 1024;
/** The PATH inside the sandbox. */
export const SANDBOX_PATH = '/usr/local/bin:/usr/bin:/bin';

/**
 * The part of every bwrap command line nestclaw runs (a tool's command, an untrusted plugin): every
 * namespace unshared (the network too unless allowed), no nested user namespaces, killed with its
 * parent, its own session, an unprivileged uid, system directories read-only, a few /etc files (the
 * resolver's only with the network), /proc, /dev and a memory-backed /tmp. Callers add their binds.
 */
export function sandboxBaseArgs(network: boolean): string[] {
  const a = ['--unshare-all'];
  if (network) a.push('--share-net');
  a.push('--unshare-user', '--disable-userns', '--die-with-parent', '--new-session');
  a.push('--uid', String(SANDBOX_UID), '--gid', String(SANDBOX_UID));
  for (const dir of SYSTEM_DIRS) {
    if (!existsSync(dir)) continue;
    if (lstatSync(dir).isSymbolicLink()) a.push('--symlink', readlinkSync(dir), dir);
    else a.push('--ro-bind', dir, dir);
  }
  for (const f of network ? [...ETC_FILES, ...NET_ETC_FILES] : ETC_FILES) a.push('--ro-bind-try', f, f);
  a.push('--proc', '/proc', '--dev', '/dev', '--size', String(TMP_BYTES), '--tmpfs', '/tmp');
  return a;
}
