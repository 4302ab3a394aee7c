/**
 * One deadline for a whole request, shared by every attempt on every model. Its signal aborts when
 * the deadline passes or the caller cancels; attempts derive theirs from it, so none outlives it.
 */
export class TimeoutBudget {
  private readonly controller = new AbortController();
  private readonly deadline: number;
  private readonly timer: NodeJS.Timeout;
  private expiredByTimer = false;
  private readonly onCancel = () => this.controller.abort(this.caller?.reason);

  constructor(
    readonly budgetMs: number,
    private readonly caller?: AbortSignal,
  ) {
    this.deadline = performance.now() + budgetMs;
    this.timer = setTimeout(() => {
      this.expiredByTimer = true;
      this.controller.abort(new Error(`timeout budget of ${budgetMs} ms exhausted`));
    }, budgetMs);
    if (caller?.aborted) this.controller.abort(caller.reason);
    else caller?.addEventListener('abort', this.onCancel, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  remaining(): number {
    return Math.max(0, this.deadline - performance.now());
  }

  get expired(): boolean {
    return this.expiredByTimer || (!this.cancelled && this.remaining() <= 0);
  }

  get cancelled(): boolean {
    return this.caller?.aborted ?? false;
  }

  /** Waits `ms` (callers only ask when it fits); returns early when the budget ends or the caller cancels. */
  sleep(ms: number): Promise<void> {
    if (this.signal.aborted || ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(t);
        this.signal.removeEventListener('abort', done);
        resolve();
      };
      const t = setTimeout(done, ms);
      this.signal.addEventListener('abort', done, { once: true });
    });
  }

  /**
   * The signal for one attempt, cut at `sliceMs` when that is shorter than what is left of the
   * budget (the model's share). `firstOutput()` lifts the cut for a stream that has started.
   */
  attempt(sliceMs: number | undefined): AttemptDeadline {
    return new AttemptDeadline(this, sliceMs);
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.caller?.removeEventListener('abort', this.onCancel);
  }
}

export class AttemptDeadline {
  readonly signal: AbortSignal;
  private controller?: AbortController;
  private timer?: NodeJS.Timeout;
  private sliceHit = false;
  private readonly relay = () => this.controller?.abort(this.budget.signal.reason);

  constructor(
    private readonly budget: TimeoutBudget,
    sliceMs: number | undefined,
  ) {
    if (sliceMs === undefined || sliceMs >= budget.remaining()) {
      // The common case costs nothing: the attempt simply runs on the budget's own signal.
      this.signal = budget.signal;
      return;
    }
    const controller = (this.controller = new AbortController());
    this.signal = controller.signal;
    budget.signal.addEventListener('abort', this.relay, { once: true });
    this.timer = setTimeout(
      () => {
        this.sliceHit = true;
        controller.abort(new Error(`attempt timed out after ${Math.round(sliceMs)} ms`));
      },
      Math.max(1, sliceMs),
    );
  }

  /** True when this attempt was cut by its share of the budget (not by the budget or the caller). */
  get timedOut(): boolean {
    return this.sliceHit && !this.budget.signal.aborted;
  }

  /** A stream showed output: from now on it may use the whole remaining budget. */
  firstOutput(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.controller) this.budget.signal.removeEventListener('abort', this.relay);
  }
}
