import { MemoByIdentities } from './memo-by-identities';

describe('MemoByIdentities', () => {
  it('computes once per list of the same objects, however often the list is rebuilt', () => {
    const compute = jest.fn((list: readonly unknown[]) => JSON.stringify(list));
    const memo = new MemoByIdentities(compute);
    const a = { name: 'a' };
    const b = { name: 'b' };
    expect(memo.get([a, b])).toBe('[{"name":"a"},{"name":"b"}]');
    expect(memo.get([a, b])).toBe('[{"name":"a"},{"name":"b"}]');
    expect(compute).toHaveBeenCalledTimes(1);
    // Another order, a prefix, or an equal but different object is another list.
    expect(memo.get([b, a])).toBe('[{"name":"b"},{"name":"a"}]');
    expect(memo.get([a])).toBe('[{"name":"a"}]');
    expect(memo.get([{ name: 'a' }, b])).toBe('[{"name":"a"},{"name":"b"}]');
    expect(compute).toHaveBeenCalledTimes(4);
  });

  it('computes every time for a list holding plain values, and keeps an empty list once', () => {
    const compute = jest.fn((list: readonly unknown[]) => list.length);
    const memo = new MemoByIdentities(compute);
    expect(memo.get(['x', 1])).toBe(2);
    expect(memo.get(['x', 1])).toBe(2);
    expect(memo.get([])).toBe(0);
    expect(memo.get([])).toBe(0);
    expect(compute).toHaveBeenCalledTimes(3);
  });
});
