import { Command } from 'commander';
import { PairedTokenService } from '@nestclaw/security';
import { finish, messageOf, note, out, red } from '../cli-output';
import { withServices } from './pairing.context';

/** Adds `list` and `revoke` (paired client tokens) to the `token` command. */
export function addTokenAdminCommands(token: Command): Command {
  token
    .command('list')
    .description('tokens issued to paired clients (never the tokens themselves)')
    .action(async () => finish(await run(list)));
  token
    .command('revoke')
    .description('revoke a paired client token; its next request gets 401')
    .argument('<id>', 'token id (or a unique prefix) from `nestclaw token list`')
    .action(async (id: string) => finish(await run((t) => revoke(t, id))));
  return token;
}

async function run(fn: (tokens: PairedTokenService) => Promise<number>): Promise<number> {
  try {
    return await withServices((app) => fn(app.get(PairedTokenService)));
  } catch (e) {
    note(red(`✖ ${messageOf(e)}`));
    return 1;
  }
}

async function list(tokens: PairedTokenService): Promise<number> {
  const all = await tokens.list();
  if (all.length === 0) out('no paired tokens (pair a client with `nestclaw pair`)');
  for (const t of all) {
    const state = t.revokedAt ? `revoked ${t.revokedAt}` : `last used ${t.lastUsedAt ?? 'never'}`;
    out(`${t.id}\t${t.name}\t${t.scopes.join(',')}\t${state}`);
  }
  return 0;
}

async function revoke(tokens: PairedTokenService, id: string): Promise<number> {
  const t = await tokens.revoke(id);
  out(`revoked ${t.id} (${t.name})`);
  return 0;
}
