import type { Pool, PoolClient } from 'pg';

const handled = new WeakSet<Pool>();

/**
 * Makes a server going away (a stop: 57P01 admin shutdown, a terminated backend, a dropped socket)
 * something a pool reports, never an uncaught exception. pg emits 'error' on the pool for an idle
 * client, and for a client pool.end() is still closing (it resolves before the socket is closed);
 * on the client itself while it is checked out. With no listener either one ends the process. A
 * query in flight is rejected anyway, so the listener only has to note the loss. Idempotent.
 */
export function handleConnectionLoss<P extends Pool>(pool: P, onLost: (e: Error) => void = () => undefined): P {
  if (handled.has(pool)) return pool;
  handled.add(pool);
  pool.on('error', onLost);
  pool.on('connect', (client: PoolClient) => client.on('error', onLost));
  return pool;
}
