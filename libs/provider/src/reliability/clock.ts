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

/** A clock that only moves when told to. */
export class ManualClock extends Clock {
  constructor(private current = Date.now()) {
    super();
  }

  override now(): number {
    return this.current;
  }

  advance(ms: number): void {
    this.current += ms;
  }
}
