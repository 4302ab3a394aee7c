import { Clock } from '@nestclaw/provider';

/** A clock that only moves when told to: breaker and rate-limit windows without sleeping. */
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
