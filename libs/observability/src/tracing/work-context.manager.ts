import { Context, ContextManager, ROOT_CONTEXT } from '@opentelemetry/api';
import { workContext } from '../context/work-context';

/**
 * OpenTelemetry's context manager on the log context's AsyncLocalStorage (context/work-context.ts),
 * instead of the SDK's AsyncLocalStorageContextManager with a storage of its own: same behaviour,
 * one storage to propagate. The log ids of the frame are kept when a span context is entered.
 */
export class WorkContextManager implements ContextManager {
  active(): Context {
    return workContext.getStore()?.trace ?? ROOT_CONTEXT;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    context: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    const cb = thisArg == null ? fn : (fn.bind(thisArg) as F);
    return workContext.run({ log: workContext.getStore()?.log, trace: context }, cb, ...args);
  }

  /** Functions only: nothing in nestclaw binds event emitters (there are no auto-instrumentations). */
  bind<T>(context: Context, target: T): T {
    if (typeof target !== 'function') return target;
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const manager = this;
    return function (this: unknown, ...args: unknown[]) {
      return manager.with(context, () => (target as (...a: unknown[]) => unknown).apply(this, args));
    } as T;
  }

  enable(): this {
    return this;
  }

  disable(): this {
    return this;
  }
}
