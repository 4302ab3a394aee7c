import { Injectable } from '@nestjs/common';
import { OWNER, Principal, RateLimiter, SensitiveConfigService } from '@nestclaw/security';

/**
 * `security.rate_limit.per_token` for paired tokens, shared by HTTP routes and WebSocket chat
 * frames so a token cannot double its budget by switching transport. The owner is not limited.
 */
@Injectable()
export class TokenRateLimit {
  private readonly limiter = new RateLimiter();

  constructor(private readonly settings: SensitiveConfigService) {}

  /** 0 when the request may go ahead, else milliseconds until it may. */
  hit(principal: Principal): number {
    if (principal === OWNER) return 0;
    const { limit, window } = this.settings.get().rate_limit.per_token;
    return this.limiter.hit(`token:${principal.id}`, limit, window);
  }
}
