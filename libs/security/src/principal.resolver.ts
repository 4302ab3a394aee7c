import { Injectable } from '@nestjs/common';
import { ApiTokenService } from './api-token.service';
import { PairedTokenService } from './paired-token.service';
import { OWNER, Principal } from './scopes';

/**
 * Who a bearer token belongs to: the owner (the gateway's own token, compared in constant time) or a
 * live paired token. One lookup for every door — HTTP routes, the WebSocket upgrade, the metrics
 * listener — so they cannot drift apart. Scopes and rate limits stay with each door.
 */
@Injectable()
export class PrincipalResolver {
  constructor(
    private readonly owner: ApiTokenService,
    private readonly paired: PairedTokenService,
  ) {}

  /** The principal for `token`, or null when it is missing, unknown or revoked. */
  async resolve(token: string | undefined): Promise<Principal | null> {
    if (!token) return null;
    return this.owner.verify(token) ? OWNER : this.paired.authenticate(token);
  }
}
