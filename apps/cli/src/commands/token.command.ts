import { Command } from 'commander';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { nestclawHome } from '@nestclaw/config';
import { generateToken, writeTokenFile } from '@nestclaw/security';
import { finish, note, out } from '../cli-output';

/** Same location ApiTokenService uses: `$NESTCLAW_HOME/token`. */
const tokenPath = () => join(nestclawHome(), 'token');

export function tokenCommand(): Command {
  const token = new Command('token').description('show (default) or rotate the API token');
  token
    .command('show', { isDefault: true })
    .description('print the API token (send it as "Authorization: Bearer <token>")')
    .action(() => finish(show()));
  token
    .command('rotate')
    .description('write a new token; the running gateway accepts it without a restart')
    .action(() => finish(rotate()));
  return token;
}

function show(): number {
  const path = tokenPath();
  if (process.env.NESTCLAW_TOKEN) {
    out(`the token comes from the NESTCLAW_TOKEN environment variable; ${path} is not used`);
    return 0;
  }
  if (!existsSync(path)) {
    note(`no token yet: ${path} does not exist. Start the gateway once (\`nestclaw start\`) or run \`nestclaw token rotate\`.`);
    return 1;
  }
  // Only the token on stdout, so `$(nestclaw token)` works in scripts.
  out(readFileSync(path, 'utf8').trim());
  return 0;
}

function rotate(): number {
  const path = tokenPath();
  const token = generateToken();
  writeTokenFile(path, token);
  out(token);
  note(`saved to ${path}. A running gateway uses it from its next request on; the old token is rejected from then on.`);
  if (process.env.NESTCLAW_TOKEN) note('note: NESTCLAW_TOKEN is set here; a gateway started with it ignores the token file.');
  return 0;
}
