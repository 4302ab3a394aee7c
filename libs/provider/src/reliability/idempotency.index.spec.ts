import { IdempotencyKeyIndex, MAX_INDEXED_KEYS } from './idempotency.index';

describe('IdempotencyKeyIndex', () => {
  it('answers "nothing stored" for unknown keys without asking the database once loaded', () => {
    const index = new IdempotencyKeyIndex();
    index.load([{ key: 'a', expiresAt: Date.now() + 60_000 }]);
    expect(index.candidates(['x', 'a', 'y'])).toEqual(['a']);
    index.add('y', Date.now() + 60_000);
    expect(index.candidates(['x', 'y'])).toEqual(['y']);
  });

  it('forgets expired keys', () => {
    const index = new IdempotencyKeyIndex();
    index.load([{ key: 'a', expiresAt: 1000 }]);
    expect(index.candidates(['a'], 999)).toEqual(['a']);
    expect(index.candidates(['a'], 1000)).toEqual([]);
  });

  it('sends every key to the database until loaded, or when there are too many to index', () => {
    const index = new IdempotencyKeyIndex();
    expect(index.candidates(['a', 'b'])).toEqual(['a', 'b']);
    index.load(Array.from({ length: MAX_INDEXED_KEYS + 1 }, (_, i) => ({ key: `k${i}`, expiresAt: Infinity })));
    expect(index.complete).toBe(false);
    expect(index.candidates(['a'])).toEqual(['a']);
  });
});
