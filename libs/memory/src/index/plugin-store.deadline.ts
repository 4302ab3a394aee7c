/**
 * A plugin store's call bounded in time: past `ms` it fails with a clear message (and `abort` is
 * signalled so a store that honours it stops working), whatever the plugin's promise does later.
 */
export function withDeadline<T>(work: Promise<T>, ms: number, what: string, abort?: AbortController): Promise<T> {
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
