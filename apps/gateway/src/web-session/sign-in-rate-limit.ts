import { Injectable } from '@nestjs/common';
import { NestclawError } from '@nestclaw/common';
import { SensitiveConfigService, SharedRateLimiter } from '@nestclaw/security';

/**
 * `security.rate_limit.sign_in`: browser sign-in attempts per client address, right or wrong,
 * counted in PostgreSQL (SharedRateLimiter) like `per_token`, so replicas share one budget. Counted
 * before the credential is looked at, so a client over the limit learns nothing from a guess.
 */
@Injectable()
export class SignInRateLimit {
  constructor(
    private readonly settings: SensitiveConfigService,
    private readonly limiter: SharedRateLimiter,
  ) {}

  /** Throws rate_limited (with Retry-After) when `address` has tried too often. */
  async hit(address: string): Promise<void> {
    const { limit, window } = this.settings.get().rate_limit.sign_in;
    const waitMs = await this.limiter.hit(`sign_in:${address}`, limit, window);
    if (waitMs <= 0) return;
    const retryAfterSeconds = Math.ceil(waitMs / 1000);
    throw new NestclawError('rate_limited', `Too many sign-in attempts from this address; retry in ${retryAfterSeconds} s`, {
      retryAfterSeconds,
    });
  }
}
