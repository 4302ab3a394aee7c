import { LogContext, workContext } from '../context/work-context';

export type { LogContext } from '../context/work-context';

/** Runs `fn` with `ids` added to the current context (a copy: the caller's context is unchanged). */
export function withLogContext<T>(ids: LogContext, fn: () => T): T {
  const current = workContext.getStore();
  return workContext.run({ log: { ...current?.log, ...ids }, trace: current?.trace }, fn);
}

export function currentLogContext(): LogContext | undefined {
  return workContext.getStore()?.log;
}

/** Adds ids learned part-way (the turn id is made once the turn opens) to the running context. */
export function addToLogContext(ids: LogContext): void {
  const log = workContext.getStore()?.log;
  if (log) Object.assign(log, ids);
}
