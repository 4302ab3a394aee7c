import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { IS_PUBLIC } from '../../apps/gateway/src/auth/public.decorator';
import { REQUIRED_SCOPE, RouteScope } from '../../apps/gateway/src/auth/require-scope.decorator';
import { NOT_IN_API } from '../../apps/gateway/src/openapi/not-in-api.decorator';
import type { Harness } from './gateway-harness';

export interface Route {
  method: string;
  path: string;
  isPublic: boolean;
  /** What the bearer guard demands: @RequireScope (`any`: every valid token), else `chat`. */
  scope: RouteScope;
  /** Described in /v1/openapi.json (all but the control UI's pages and assets, @NotInApi). */
  inApi: boolean;
}

/** Every route Nest registered, read from its controllers the way the router reads them. */
export function nestRoutes(h: Harness): Route[] {
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
        scope: reflector.getAllAndOverride<RouteScope | undefined>(REQUIRED_SCOPE, targets) ?? 'chat',
        inApi: !Reflect.getMetadata(NOT_IN_API, wrapper.metatype),
      });
    }
  }
  return routes;
}

/** A path with every `:param` filled in, for sweeps that only need the route to match. */
export const concrete = (path: string) => path.replace(/:[^/]+/g, 'route-sweep-id');
