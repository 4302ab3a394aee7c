import { clientToken, runningGatewayBase } from './chat/gateway-endpoint';
import { finish, messageOf, note, red } from './cli-output';

/**
 * One JSON call to the gateway (`--url`, else the one started from this $NESTCLAW_HOME, else the
 * configured address) with the client token; a failure says what to do next.
 */
export async function call<T>(opts: { url?: string }, path: string, init: { method?: string; json?: unknown } = {}): Promise<T> {
  const { token, tried } = clientToken();
  if (!token) throw new Error(`no gateway token (tried ${tried}); start the gateway once or set NESTCLAW_TOKEN`);
  const base = runningGatewayBase(opts.url);
  if (!base) throw new Error('no gateway to ask: none started from this $NESTCLAW_HOME and the config file is invalid; pass --url');
  let res: Response;
  try {
    res = await fetch(`${base}${path}`, {
      method: init.method ?? (init.json ? 'POST' : 'GET'),
      headers: { authorization: `Bearer ${token}`, ...(init.json ? { 'content-type': 'application/json' } : {}) },
      body: init.json ? JSON.stringify(init.json) : undefined,
    });
  } catch {
    throw new Error(`the gateway at ${base} is not reachable; start it with \`nestclaw start\``);
  }
  const body = (await res.json().catch(() => ({}))) as T & { error?: { message: string } };
  if (!res.ok) throw new Error(body.error?.message ?? `HTTP ${res.status}`);
  return body;
}

/** A command's action: its exit code, or ✖ and the reason with exit code 1. */
export const run = (fn: () => Promise<number>) => async () => {
  try {
    finish(await fn());
  } catch (e) {
    note(red(`✖ ${messageOf(e)}`));
    finish(1);
  }
};
