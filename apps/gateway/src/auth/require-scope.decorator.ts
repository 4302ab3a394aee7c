import { SetMetadata } from '@nestjs/common';
import type { Scope } from '@nestclaw/security';

export const REQUIRED_SCOPE = 'nestclaw:scope';
/** The scope a route needs (default for authenticated routes: `chat`). */
export const RequireScope = (scope: Scope) => SetMetadata(REQUIRED_SCOPE, scope);
