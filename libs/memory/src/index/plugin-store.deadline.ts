/**
 * A plugin store's call bounded in time (a sync throw included): past `ms` it fails with a clear message (and `abort` is
 * signalled so a store that honours it stops working), whatever the plugin's promise does later.
 */
export function withDeadline<T>(call: () => Promise<T> | T, ms: number, what: string, abort?: AbortController): Promise<T> {
  // A plugin method that throws before returning a promise fails like one that rejects.
  const work = Promise.resolve().then(call);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      abort?.abort();
      reject(new Error(`the memory store's ${what} took longer than ${ms} ms`));
    }, ms);
  });
  // A rejection arriving after the deadline is already answered; keep it from being unhandled.
  work.catch(() => undefined);
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
