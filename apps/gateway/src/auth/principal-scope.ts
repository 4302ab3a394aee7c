import { OWNER, Principal } from '@nestclaw/security';

/** The id that scopes session access: a paired token's id; undefined for the owner (sees everything). */
export function sessionScopeOf(principal: Principal | undefined): string | undefined {
  return !principal || principal === OWNER ? undefined : principal.id;
}
