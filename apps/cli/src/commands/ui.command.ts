import { Command, Option } from 'commander';
import { clientToken, runningGatewayBase } from '../chat/gateway-endpoint';
import { finish, messageOf, note, out, red } from '../cli-output';

const HELP_AFTER = `
The link carries a one-time login code (2 minutes, single use) in its #fragment. Browsers never send
a fragment to any server, nor in a Referer header; the page posts the code to POST /v1/auth/session,
removes it from the address bar, and holds the session in an HttpOnly cookie. No token ever appears
in a URL. Run it again for a new link; \`nestclaw token revoke\` or signing out ends a session at once.`;

/** `nestclaw ui`: a sign-in link for the control UI of the running gateway, made with the owner token. */
export function uiCommand(): Command {
  return new Command('ui')
    .description('print a one-time sign-in link for the web UI of the running gateway')
    .addOption(new Option('-u, --url <url>', 'gateway URL (default: the gateway started from $NESTCLAW_HOME, else server.host/port)'))
    .addHelpText('after', HELP_AFTER)
    .action(async (opts: { url?: string }) => finish(await printLink(opts.url)));
}

async function printLink(explicitUrl?: string): Promise<number> {
  const base = runningGatewayBase(explicitUrl);
  const { token, tried } = clientToken();
  if (!base) return fail('no gateway to ask: none started from this $NESTCLAW_HOME and the config file is invalid; pass --url');
  if (!token) return fail(`no API token: ${tried} does not exist. Start the gateway once (\`nestclaw start\`) or set NESTCLAW_TOKEN.`);
  let res: Response;
  try {
    res = await fetch(`${base}/v1/auth/login-codes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{}',
    });
  } catch (e) {
    return fail(`cannot reach the gateway at ${base} (${messageOf(e)}): is \`nestclaw start\` running? (or pass --url)`);
  }
  const body = (await res.json().catch(() => ({}))) as { code?: string; expiresAt?: string; error?: { message?: string } };
  if (!res.ok || !body.code) {
    const why = body.error?.message ?? `HTTP ${res.status}`;
    return fail(res.status === 401 ? `the gateway at ${base} rejected the token (${why}); see \`nestclaw token\`` : why);
  }
  out(`Open ${base}/#login=${body.code}`);
  note(`valid once, until ${body.expiresAt ?? 'two minutes from now'}; the code stays in the #fragment, which is never sent to a server`);
  return 0;
}

function fail(message: string): number {
  note(red(`✖ ${message}`));
  return 1;
}
