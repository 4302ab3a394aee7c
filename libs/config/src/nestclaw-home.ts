import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** `$NESTCLAW_HOME`, default `~/.nestclaw`: config, token, embedded database, workspaces. */
export function nestclawHome(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(env.NESTCLAW_HOME || join(homedir(), '.nestclaw'));
}

export function defaultConfigPath(env: NodeJS.ProcessEnv = process.env): string {
  return env.NESTCLAW_CONFIG ? resolve(env.NESTCLAW_CONFIG) : join(nestclawHome(env), 'config.yaml');
}
