export interface RetryPolicy {
  /** Seconds the platform asked us to wait (429 retry_after), if it did. */
  retryAfter(e: unknown): number | undefined;
  /** Worth another try (5xx, network) — a 4xx other than 429 is not. */
  transient(e: unknown): boolean;
  maxAttempts?: number;
  baseDelayMs?: number;
  /** Longest 429 wait honoured; longer ones fail the send. */
  maxRetryAfterMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Runs a send, honouring 429 retry_after exactly and backing off exponentially on transient errors. */
export async function withRetry<T>(fn: () => Promise<T>, p: RetryPolicy): Promise<T> {
  const max = p.maxAttempts ?? 5;
  const sleep = p.sleep ?? defaultSleep;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (e) {
      if (attempt >= max) throw e;
      const after = p.retryAfter(e);
      if (after !== undefined) {
        const ms = Math.ceil(after * 1000);
        if (ms > (p.maxRetryAfterMs ?? 120_000)) throw e;
        await sleep(ms);
        continue;
      }
      if (!p.transient(e)) throw e;
      await sleep((p.baseDelayMs ?? 500) * 2 ** (attempt - 1));
    }
  }
}
