import { Client, ClientConfig } from 'pg';
import type { Reachability } from './reachability';
import { statementObserver } from './statement-observer';

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
    // pg's pool listens for errors only while a client is idle. A checked-out client that reads a
    // late answer after its query timed out (a partition healing) emits 'error'; unheard, that
    // would end the process. Its queries have already failed and the pool drops it on release.
    this.on('error', (err: Error) => this.reachability?.failed(err));
  }

  override query(...args: unknown[]): never {
    const done = this.observe(args[0]);
    const last = args[args.length - 1];
    if (typeof last === 'function') {
      args[args.length - 1] = (err: Error | null, res?: unknown) => {
        done?.(err);
        this.onFailure(err);
        (last as Callback)(err, res);
      };
      return (super.query as (...a: unknown[]) => never)(...args);
    }
    const result = (super.query as (...a: unknown[]) => unknown)(...args);
    if (result && typeof (result as Promise<unknown>).then === 'function') {
      (result as Promise<unknown>).then(
        () => done?.(),
        (e: Error) => {
          done?.(e);
          this.onFailure(e);
        },
      );
    } else done?.();
    return result as never;
  }

  /** The statement observer's end callback for this query (text or config object; not for submittables). */
  private observe(query: unknown): ((error?: Error | null) => void) | undefined {
    const observer = statementObserver();
    if (!observer) return undefined;
    if (typeof query === 'string') return observer(query, undefined);
    const config = query as { text?: unknown; observedText?: unknown; name?: unknown; submit?: unknown } | null;
    if (!config || typeof config.text !== 'string' || typeof config.submit === 'function') return undefined;
    // A statement with its values written in (DatabaseService.begin) is observed as its parameterised text.
    const text = typeof config.observedText === 'string' ? config.observedText : config.text;
    return observer(text, typeof config.name === 'string' ? config.name : undefined);
  }

  private onFailure(err: Error | null): void {
    if (!err) return;
    this.reachability?.failed(err);
    if (err.message !== QUERY_TIMEOUT_MESSAGE) return;
    const stream = (this as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream;
    stream?.destroy();
  }
}
