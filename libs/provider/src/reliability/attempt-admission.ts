import { Injectable } from '@nestjs/common';
import { SpendBudget } from '../budget/spend-budget';
import type { RegisteredModel } from '../provider.registry';
import { CircuitBreakerRegistry } from './circuit-breaker.registry';
import { Clock } from './clock';
import { RateLimitTracker } from './rate-limit.tracker';

/**
 * What lets an attempt on a model start, consulted by ChainRun for every attempt: the model's
 * breaker and rate limit (and the clock they run on), and the running agent's spend budget. Each
 * admitted attempt holds a breaker permit, a rate-limit reservation and a spend hold until it settles.
 */
@Injectable()
export class AttemptAdmission {
  constructor(
    readonly breakers: CircuitBreakerRegistry,
    readonly limits: RateLimitTracker,
    readonly clock: Clock,
    readonly spend: SpendBudget,
  ) {}

  /** Why a model cannot take a request of `tokens` now, and from when it could; undefined = it can. */
  blocked(m: RegisteredModel, tokens: number): { why: string; until?: number } | undefined {
    const breaker = this.breakers.for(m.name);
    if (!breaker.available) return { why: 'circuit open', until: breaker.probeAt };
    const until = this.limits.blockedUntil(m.name, m.config.limits, tokens);
    return until === undefined ? undefined : { why: 'at its rate limit', until };
  }
}
