import { SetMetadata } from '@nestjs/common';
import type { Scope } from '@nestclaw/security';

export const REQUIRED_SCOPE = 'nestclaw:scope';
/**
 * For routes any valid token may call, whatever scopes it holds: only the API description
 * (`GET /v1/openapi.json`), which tells a caller nothing the open-source code does not.
 */
export const ANY_SCOPE = 'any';
export type RouteScope = Scope | typeof ANY_SCOPE;
/** The scope a route needs (default for authenticated routes: `chat`). */
export const RequireScope = (scope: RouteScope) => SetMetadata(REQUIRED_SCOPE, scope);
