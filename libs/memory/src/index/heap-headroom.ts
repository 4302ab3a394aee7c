import { getHeapStatistics, HeapInfo } from 'node:v8';

/** Share of V8's heap limit in use, after the index is loaded, above which start-up warns. */
const TIGHT = 0.6;
const mb = (bytes: number) => Math.round(bytes / 2 ** 20);

/**
 * The keyword index lives in the JavaScript heap and grows with the chunks (~290 bytes each: 1M
 * chunks took 288 MB), while `npm start` and the Docker image cap the heap at 256 MB to keep RSS
 * flat under load. A process near its cap would die later, at a bad moment, with "heap out of
 * memory"; this says so at start-up, with the setting to change.
 */
export function heapHeadroomWarning(
  chunks: number,
  heap: Pick<HeapInfo, 'used_heap_size' | 'heap_size_limit'> = getHeapStatistics(),
): string | undefined {
  if (heap.used_heap_size < TIGHT * heap.heap_size_limit) return undefined;
  const suggested = Math.ceil((heap.used_heap_size * 2) / 2 ** 28) * 256;
  return (
    `the memory index holds ${chunks} chunks and the JavaScript heap is at ${mb(heap.used_heap_size)} of its ${mb(heap.heap_size_limit)} MB limit; ` +
    `raise the limit before it runs out: NODE_OPTIONS="--max-old-space-size=${suggested} --max-semi-space-size=8" (npm start and the Docker image default to 256 and 8)`
  );
}

/** After a keyword index is loaded or rebuilt: it lives in the JavaScript heap. */
export function warnIfHeapTight(logger: { warn(message: string): void }, chunks: number): void {
  const warning = heapHeadroomWarning(chunks);
  if (warning) logger.warn(warning);
}
