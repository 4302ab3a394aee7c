import { Injectable } from '@nestjs/common';
import { OWNER, Principal, SensitiveConfigService, SharedRateLimiter } from '@nestclaw/security';

/**
 * `security.rate_limit.per_token` for paired tokens, shared by HTTP routes and WebSocket chat
 * frames so a token cannot double its budget by switching transport, and counted in PostgreSQL
 * (SharedRateLimiter) so it cannot multiply it by the replica count either. The owner is not
 * limited and costs no statement.
 */
@Injectable()
export class TokenRateLimit {
  constructor(
    private readonly settings: SensitiveConfigService,
    private readonly limiter: SharedRateLimiter,
  ) {}

  /** 0 when the request may go ahead, else milliseconds until it may. */
  async hit(principal: Principal): Promise<number> {
    if (principal === OWNER) return 0;
    const { limit, window } = this.settings.get().rate_limit.per_token;
    return this.limiter.hit(`token:${principal.id}`, limit, window);
  }
}
