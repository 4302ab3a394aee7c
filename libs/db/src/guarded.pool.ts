import { Pool, PoolClient, PoolConfig } from 'pg';
import type { Reachability } from './reachability';

type ConnectCallback = (err: Error | undefined, client: PoolClient | undefined, done: (release?: unknown) => void) => void;

/**
 * A pg pool that consults Reachability before handing out a connection (pool.query goes through
 * connect too, and so does Prisma's driver adapter) and reports connection failures to it.
 */
export class GuardedPool extends Pool {
  constructor(
    config: PoolConfig,
    private readonly reachability: Reachability,
  ) {
    super(config);
  }

  // pg's overloads (promise or callback) are kept as they are; only the gate is added.
  override connect(callback?: ConnectCallback): never {
    const refused = this.reachability.gate();
    if (callback) {
      if (refused) {
        process.nextTick(() => callback(refused, undefined, () => undefined));
        return undefined as never;
      }
      return (super.connect as unknown as (cb: ConnectCallback) => never)((err, client, done) => {
        if (err) this.reachability.failed(err);
        callback(err, client, done);
      });
    }
    if (refused) return Promise.reject(refused) as never;
    return super.connect().catch((e: unknown) => {
      this.reachability.failed(e);
      throw e;
    }) as never;
  }
}
