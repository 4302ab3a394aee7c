import { clientToken, gatewayWsUrl } from './chat/gateway-endpoint';
import { finish, messageOf, note, red } from './cli-output';

/** The gateway's HTTP base (same lookup as `nestclaw chat`). */
function httpBase(explicit?: string): string {
  const ws = new URL(gatewayWsUrl(explicit));
  ws.protocol = ws.protocol === 'wss:' ? 'https:' : 'http:';
  ws.pathname = ws.pathname.replace(/\/ws$/, '');
  return ws.toString().replace(/\/+$/, '');
}

/** One JSON call to the running gateway with the client token; a failure says what to do next. */
export async function call<T>(opts: { url?: string }, path: string, init: { method?: string; json?: unknown } = {}): Promise<T> {
  const { token, tried } = clientToken();
  if (!token) throw new Error(`no gateway token (tried ${tried}); start the gateway once or set NESTCLAW_TOKEN`);
  const base = httpBase(opts.url);
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
