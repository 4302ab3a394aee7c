import { PairedTokenService, Scope, SCOPES } from '@nestclaw/security';
import { ANY_SCOPE } from '../../apps/gateway/src/auth/require-scope.decorator';
import { Harness, startHarness } from '../support/gateway-harness';
import { concrete, nestRoutes, Route } from '../support/route-table';

type ErrorBody = { error: { code: string } };

/** Only these answer without a token: the liveness probe and the trade of a one-time pairing code. */
// The probes (liveness, readiness) answer orchestrators without a token; the pairing exchange is how a token is got;
// browser sign-in trades a token or login code (in the body) for a session cookie. The control UI's static files
// (apps/gateway/src/ui) hold no data: the page asks the API, which needs the session. An inbound webhook is
// authenticated by the HMAC signature of its body with the hook's own secret instead (docs/webhooks.md).
const PUBLIC_ROUTES = [
  'GET /',
  'GET /agents',
  'GET /approvals',
  'GET /assets/:file',
  'GET /channels',
  'GET /favicon.svg',
  'GET /health',
  'GET /health/live',
  'GET /health/ready',
  'GET /jobs',
  'GET /memory',
  'GET /sessions',
  'GET /settings',
  'GET /usage',
  'POST /api/webhook/:id',
  'POST /v1/auth/session',
  'POST /v1/pair',
];

/**
 * Every route the HTTP server itself answers (Fastify's route table, printed as a tree): catches a
 * route registered on Fastify directly, around Nest's guards. HEAD/OPTIONS mirrors are left out.
 */
function serverRoutes(h: Harness): string[] {
  const tree = h.gateway.app.getHttpAdapter().getInstance().printRoutes({ commonPrefix: false });
  const found: string[] = [];
  const stack: string[] = [];
  for (const line of tree.split('\n')) {
    const m = /^((?:[│ ] {3})*)[├└]── (\S+)(?: \(([^)]+)\))?/.exec(line);
    if (!m) continue;
    const depth = m[1].length / 4;
    stack.length = depth;
    stack.push(m[2]);
    for (const method of (m[3] ?? '').split(', ').filter(Boolean)) {
      if (method !== 'HEAD' && method !== 'OPTIONS') found.push(`${method} ${stack.join('')}`);
    }
  }
  return found.sort();
}

describe('bearer auth on every route', () => {
  let h: Harness;
  let routes: Route[];
  /** For each scope, a live paired token holding every scope but that one. */
  const lacking = new Map<Scope, string>();
  beforeAll(async () => {
    h = await startHarness({ config: { webhooks: { probe: { secret: 'route-sweep-secret-0123' } } } });
    routes = nestRoutes(h);
    const paired = h.gateway.app.get(PairedTokenService);
    for (const scope of SCOPES) {
      const { token } = await paired.issue(
        `route sweep without ${scope}`,
        SCOPES.filter((s) => s !== scope),
      );
      lacking.set(scope, token);
    }
  });
  afterAll(() => h.stop());

  it('finds the same routes in Nest and in the HTTP server, so every one passes the guard', () => {
    expect(routes.length).toBeGreaterThan(15);
    expect(serverRoutes(h)).toEqual(routes.map((r) => `${r.method} ${r.path}`).sort());
  });

  it("leaves only the health probes, the pairing-code exchange, browser sign-in, the control UI's files and signed webhooks public", () => {
    expect(
      routes
        .filter((r) => r.isPublic)
        .map((r) => `${r.method} ${r.path}`)
        .sort(),
    ).toEqual(PUBLIC_ROUTES);
  });

  it('opens the webhook route to its signature only: a bearer token is no substitute', async () => {
    const body = JSON.stringify({ ping: true });
    const res = await h.api('/api/webhook/probe', {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', 'x-nestclaw-delivery': 'd-1' },
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as ErrorBody).error.code).toBe('webhook_signature_invalid');
  });

  it('answers 401 unauthorized on every other route when no token is sent', async () => {
    const answers: string[] = [];
    for (const r of routes.filter((x) => !x.isPublic)) {
      const res = await fetch(`${h.gateway.url}${concrete(r.path)}`, { method: r.method });
      const code = ((await res.json()) as ErrorBody).error?.code;
      answers.push(`${r.method} ${r.path} -> ${res.status} ${code}`);
    }
    expect(answers).toEqual(routes.filter((x) => !x.isPublic).map((r) => `${r.method} ${r.path} -> 401 unauthorized`));
  });

  it('answers 403 forbidden on every other route to a token without the scope it needs', async () => {
    const scoped = routes.filter((x): x is Route & { scope: Scope } => !x.isPublic && x.scope !== ANY_SCOPE);
    const answers: string[] = [];
    for (const r of scoped) {
      const res = await fetch(`${h.gateway.url}${concrete(r.path)}`, {
        method: r.method,
        headers: { authorization: `Bearer ${lacking.get(r.scope)}` },
      });
      const code = ((await res.json()) as ErrorBody).error?.code;
      answers.push(`${r.method} ${r.path} (${r.scope}) -> ${res.status} ${code}`);
    }
    expect(answers).toEqual(scoped.map((r) => `${r.method} ${r.path} (${r.scope}) -> 403 forbidden`));
  });

  it('lets a token holding any one scope read the API description, the only route open to every token', async () => {
    const paired = h.gateway.app.get(PairedTokenService);
    const open = routes.filter((r) => !r.isPublic && r.scope === ANY_SCOPE);
    expect(open.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v1/openapi.json']);
    const answers: string[] = [];
    for (const scope of SCOPES) {
      const { token } = await paired.issue(`route sweep only ${scope}`, [scope]);
      const res = await fetch(`${h.gateway.url}/v1/openapi.json`, { headers: { authorization: `Bearer ${token}` } });
      answers.push(`${scope} -> ${res.status}`);
    }
    expect(answers).toEqual(SCOPES.map((scope) => `${scope} -> 200`));
  });
});
