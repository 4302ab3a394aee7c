import { truncateHeadTail } from './truncate-head-tail';

describe('truncateHeadTail', () => {
  it('leaves text within budget alone', () => {
    expect(truncateHeadTail('short', 100, 'X.md')).toEqual({ text: 'short', cut: 0 });
  });

  it('keeps about 70 % head and 20 % tail with a marker naming the file and the cut', () => {
    const text = 'H'.repeat(500) + 'M'.repeat(1000) + 'T'.repeat(500);
    const r = truncateHeadTail(text, 1000, 'SOUL.md');
    expect(r.cut).toBe(2000 - 700 - 200);
    expect(r.text.startsWith('H'.repeat(500) + 'M'.repeat(200))).toBe(true);
    expect(r.text.endsWith('T'.repeat(200))).toBe(true);
    expect(r.text).toContain('1100 characters of SOUL.md cut');
  });
});
