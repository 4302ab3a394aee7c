import { AsyncLocalStorage } from 'node:async_hooks';

/** Ids attached to every log line written while a request or turn is being handled. */
export interface LogContext {
  requestId?: string;
  sessionId?: string;
  turnId?: string;
  agent?: string;
}

const storage = new AsyncLocalStorage<LogContext>();

/** Runs `fn` with `ids` added to the current context (a copy: the caller's context is unchanged). */
export function withLogContext<T>(ids: LogContext, fn: () => T): T {
  return storage.run({ ...storage.getStore(), ...ids }, fn);
}

export function currentLogContext(): LogContext | undefined {
  return storage.getStore();
}

/** Adds ids learned part-way (the turn id is made once the turn opens) to the running context. */
export function addToLogContext(ids: LogContext): void {
  const store = storage.getStore();
  if (store) Object.assign(store, ids);
}
