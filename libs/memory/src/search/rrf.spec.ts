import { fuseRrf } from './rrf';

describe('Reciprocal Rank Fusion', () => {
  it('scores 1/(k + rank) per leg and sums across legs', () => {
    const fused = fuseRrf(
      [
        { ids: ['a', 'b'], weight: 1 },
        { ids: ['b', 'c'], weight: 1 },
      ],
      60,
    );
    expect(fused.map((f) => f.id)).toEqual(['b', 'a', 'c']);
    expect(fused[0].score).toBeCloseTo(1 / 62 + 1 / 61);
    expect(fused[1].score).toBeCloseTo(1 / 61);
  });

  it('uses the configured k', () => {
    expect(fuseRrf([{ ids: ['a'], weight: 1 }], 10)[0].score).toBeCloseTo(1 / 11);
  });

  it('weights legs', () => {
    const fused = fuseRrf(
      [
        { ids: ['kw'], weight: 1 },
        { ids: ['vec'], weight: 2 },
      ],
      60,
    );
    expect(fused[0]).toEqual({ id: 'vec', score: 2 / 61 });
  });

  it('ignores a leg with weight 0', () => {
    expect(
      fuseRrf([
        { ids: ['a'], weight: 0 },
        { ids: ['b'], weight: 1 },
      ]).map((f) => f.id),
    ).toEqual(['b']);
  });
});
