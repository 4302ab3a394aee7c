import { Client, ClientConfig } from 'pg';
import type { Reachability } from './reachability';

/** The error pg raises when `query_timeout` passes without an answer. */
export const QUERY_TIMEOUT_MESSAGE = 'Query read timeout';

type Callback = (err: Error | null, res?: unknown) => void;

export interface TimeoutAwareClientConfig extends ClientConfig {
  /** Told about every failed query, so an unreachable database is noticed once for the whole pool. */
  reachability?: Reachability;
}

/**
 * A pg client that drops its connection when a query times out. pg only rejects the query: the
 * connection stays checked in with the unanswered query still on the wire, so the next query on it
 * would wait behind it (or, after the partition heals, read the old answer). Destroying the socket
 * marks the client unusable and the pool replaces it.
 */
export class TimeoutAwareClient extends Client {
  private readonly reachability: Reachability | undefined;

  constructor(config: TimeoutAwareClientConfig = {}) {
    super(config);
    this.reachability = config.reachability;
  }

  override query(...args: unknown[]): never {
    const last = args[args.length - 1];
    if (typeof last === 'function') {
      args[args.length - 1] = (err: Error | null, res?: unknown) => {
        this.onFailure(err);
        (last as Callback)(err, res);
      };
      return (super.query as (...a: unknown[]) => never)(...args);
    }
    const result = (super.query as (...a: unknown[]) => unknown)(...args);
    if (result && typeof (result as Promise<unknown>).then === 'function') {
      (result as Promise<unknown>).then(undefined, (e: Error) => this.onFailure(e));
    }
    return result as never;
  }

  private onFailure(err: Error | null): void {
    if (!err) return;
    this.reachability?.failed(err);
    if (err.message !== QUERY_TIMEOUT_MESSAGE) return;
    const stream = (this as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream;
    stream?.destroy();
  }
}
