import { Injectable, RequestMethod } from '@nestjs/common';
import { HTTP_CODE_METADATA, METHOD_METADATA, PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { IS_PUBLIC } from '../auth/public.decorator';
import { REQUIRED_SCOPE, RouteScope } from '../auth/require-scope.decorator';
import type { GatewayRoute } from './gateway-route';
import { NOT_IN_API } from './not-in-api.decorator';
import { routeInputs } from './route-inputs';

/** Joins a controller prefix and a handler path the way Nest's router does: `/` + the non-empty parts. */
const joinPath = (...parts: string[]) =>
  `/${parts
    .map((p) => p.replace(/^\/|\/$/g, ''))
    .filter(Boolean)
    .join('/')}`;

/**
 * Every route of every API controller in the running app (not the UI's pages: @NotInApi), read from the
 * same decorator metadata Nest's router and the bearer guard read, so the description cannot differ from
 * what is served.
 */
@Injectable()
export class NestRouteReader {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {}

  read(): GatewayRoute[] {
    const routes: GatewayRoute[] = [];
    for (const wrapper of this.discovery.getControllers()) {
      const controller = wrapper.metatype as (new (...args: never[]) => object) | undefined;
      if (!controller || Reflect.getMetadata(NOT_IN_API, controller)) continue;
      const base = String(Reflect.getMetadata(PATH_METADATA, controller) ?? '');
      for (const name of this.scanner.getAllMethodNames(controller.prototype)) {
        const handler = (controller.prototype as Record<string, () => unknown>)[name];
        const path = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
        const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        if (path === undefined || method === undefined) continue;
        for (const one of Array.isArray(path) ? path : [path]) {
          routes.push({
            controller: controller.name,
            handler: name,
            method: RequestMethod[method],
            path: joinPath(base, one),
            access: this.accessOf([handler, controller]),
            successStatus: this.successStatusOf(controller, name, method, handler),
            inputs: routeInputs(controller, name),
          });
        }
      }
    }
    return routes;
  }

  /** As BearerAuthGuard decides it: @Public first, then @RequireScope, else `chat`. */
  private accessOf(targets: [() => unknown, new (...args: never[]) => object]): GatewayRoute['access'] {
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return 'public';
    return this.reflector.getAllAndOverride<RouteScope | undefined>(REQUIRED_SCOPE, targets) ?? 'chat';
  }

  /** @HttpCode, else Nest's default (201 for POST, 200 otherwise); unknown when the handler takes @Res. */
  private successStatusOf(controller: object, name: string, method: RequestMethod, handler: () => unknown): number | undefined {
    const args = Object.keys((Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, name) ?? {}) as object);
    if (args.some((key) => Number(key.split(':')[0]) === RouteParamtypes.RESPONSE)) return undefined;
    return (Reflect.getMetadata(HTTP_CODE_METADATA, handler) as number | undefined) ?? (method === RequestMethod.POST ? 201 : 200);
  }
}
