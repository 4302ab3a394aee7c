import { Injectable } from '@nestjs/common';

/** The runs in progress per session key, so `/stop` and `/status` can reach the one they concern. */
@Injectable()
export class RunningTurns {
  private readonly running = new Map<string, AbortController>();

  start(sessionKey: string): AbortController {
    const c = new AbortController();
    this.running.set(sessionKey, c);
    return c;
  }

  end(sessionKey: string, c: AbortController): void {
    if (this.running.get(sessionKey) === c) this.running.delete(sessionKey);
  }

  cancel(sessionKey: string): boolean {
    const c = this.running.get(sessionKey);
    c?.abort();
    return !!c;
  }

  isRunning(sessionKey: string): boolean {
    return this.running.has(sessionKey);
  }

  cancelAll(): void {
    for (const c of this.running.values()) c.abort();
  }
}
