import { heapHeadroomWarning } from './heap-headroom';

const MB = 2 ** 20;

describe('heapHeadroomWarning', () => {
  it('says nothing while the heap is well within its limit', () => {
    expect(heapHeadroomWarning(100_000, { used_heap_size: 110 * MB, heap_size_limit: 300 * MB })).toBeUndefined();
  });

  it('warns near the limit, naming the chunks, the figures and the setting to raise', () => {
    const warning = heapHeadroomWarning(1_000_000, { used_heap_size: 230 * MB, heap_size_limit: 300 * MB });
    expect(warning).toContain('1000000 chunks');
    expect(warning).toContain('230 of its 300 MB limit');
    expect(warning).toContain('NODE_OPTIONS="--max-old-space-size=512 --max-semi-space-size=8"');
  });
});
