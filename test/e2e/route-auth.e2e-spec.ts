import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { PairedTokenService, Scope, SCOPES } from '@nestclaw/security';
import { IS_PUBLIC } from '../../apps/gateway/src/auth/public.decorator';
import { REQUIRED_SCOPE } from '../../apps/gateway/src/auth/require-scope.decorator';
import { Harness, startHarness } from '../support/gateway-harness';

type ErrorBody = { error: { code: string } };

interface Route {
  method: string;
  path: string;
  isPublic: boolean;
  /** What the bearer guard demands: @RequireScope, else `chat`. */
  scope: Scope;
}

/** Only these answer without a token: the liveness probe and the trade of a one-time pairing code. */
// The probes (liveness, readiness) answer orchestrators without a token; the pairing exchange is how a token is got.
const PUBLIC_ROUTES = ['GET /health', 'GET /health/live', 'GET /health/ready', 'POST /v1/pair'];

/** Every route Nest registered, read from its controllers the way the router reads them. */
function nestRoutes(h: Harness): Route[] {
  const discovery = h.gateway.app.get(DiscoveryService);
  const scanner = h.gateway.app.get(MetadataScanner);
  const reflector = new Reflector();
  const routes: Route[] = [];
  for (const wrapper of discovery.getControllers()) {
    const instance = wrapper.instance as object | undefined;
    if (!instance || !wrapper.metatype) continue;
    const base = String(Reflect.getMetadata(PATH_METADATA, wrapper.metatype) ?? '');
    const proto = Object.getPrototypeOf(instance) as Record<string, unknown>;
    for (const name of scanner.getAllMethodNames(proto)) {
      const handler = proto[name] as object;
      const path = Reflect.getMetadata(PATH_METADATA, handler) as string | undefined;
      const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      if (path === undefined || method === undefined) continue;
      const targets = [handler as () => void, wrapper.metatype as () => void];
      routes.push({
        method: RequestMethod[method],
        path: `/${[base, path]
          .map((p) => p.replace(/^\/|\/$/g, ''))
          .filter(Boolean)
          .join('/')}`,
        isPublic: reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets) ?? false,
        scope: reflector.getAllAndOverride<Scope | undefined>(REQUIRED_SCOPE, targets) ?? 'chat',
      });
    }
  }
  return routes;
}

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

const concrete = (path: string) => path.replace(/:[^/]+/g, 'route-sweep-id');

describe('bearer auth on every route', () => {
  let h: Harness;
  let routes: Route[];
  /** For each scope, a live paired token holding every scope but that one. */
  const lacking = new Map<Scope, string>();
  beforeAll(async () => {
    h = await startHarness();
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

  it('leaves only the health probes and the pairing-code exchange public', () => {
    expect(
      routes
        .filter((r) => r.isPublic)
        .map((r) => `${r.method} ${r.path}`)
        .sort(),
    ).toEqual(PUBLIC_ROUTES);
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
    const answers: string[] = [];
    for (const r of routes.filter((x) => !x.isPublic)) {
      const res = await fetch(`${h.gateway.url}${concrete(r.path)}`, {
        method: r.method,
        headers: { authorization: `Bearer ${lacking.get(r.scope)}` },
      });
      const code = ((await res.json()) as ErrorBody).error?.code;
      answers.push(`${r.method} ${r.path} (${r.scope}) -> ${res.status} ${code}`);
    }
    expect(answers).toEqual(routes.filter((x) => !x.isPublic).map((r) => `${r.method} ${r.path} (${r.scope}) -> 403 forbidden`));
  });
});
