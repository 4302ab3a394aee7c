import { Injectable } from '@nestjs/common';

/**
 * Wall-clock time for circuit-breaker and rate-limit windows. Injected so tests can move time
 * (a breaker's 60 s reset interval) without sleeping; timeouts and backoff use real timers.
 */
@Injectable()
export class Clock {
  now(): number {
    return Date.now();
  }
}
