import { Command, Option } from 'commander';
import { ApiPairingService, Scope, SCOPES } from '@nestclaw/security';
import { finish, messageOf, note, out, red } from '../cli-output';
import { withServices } from './pairing.context';

/** `nestclaw pair`: a 6-digit code (5 minutes) a client trades for its own scoped token at POST /v1/pair. */
export function pairCommand(): Command {
  return new Command('pair')
    .description('print a one-time code a client (app, script) exchanges for its own token at POST /v1/pair')
    .addOption(new Option('-s, --scope <scope...>', 'scopes the token gets').choices([...SCOPES]).default(['chat']))
    .action(async (opts: { scope: Scope[] }) => {
      try {
        const { code, expiresAt } = await withServices((app) => app.get(ApiPairingService).createCode(opts.scope));
        out(code);
        note(`valid until ${expiresAt.toISOString()} (5 minutes), once, for scopes: ${opts.scope.join(', ')}`);
        note('the client sends: POST /v1/pair {"code": "<code>", "name": "<its name>"}');
        finish(0);
      } catch (e) {
        note(red(`✖ ${messageOf(e)}`));
        finish(1);
      }
    });
}
