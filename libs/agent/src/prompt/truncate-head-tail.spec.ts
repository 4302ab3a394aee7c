import { truncateHeadTail } from './truncate-head-tail';

describe('truncateHeadTail', () => {
  it('leaves text within budget alone', () => {
    expect(truncateHeadTail('short', 100, 'X.md')).toEqual({ text: 'short', cut: 0 });
  });

  it('keeps about 70 % head and 20 % tail with a marker naming the file and the cut', () => {
    const text = 'H'.repeat(1500) + 'M'.repeat(3000) + 'T'.repeat(1500);
    const r = truncateHeadTail(text, 3000, 'SOUL.md');
    expect(r.cut).toBe(6000 - 2100 - 600);
    expect(r.text.startsWith('H'.repeat(1500) + 'M'.repeat(600))).toBe(true);
    expect(r.text.endsWith('T'.repeat(600))).toBe(true);
    expect(r.text).toContain('3300 characters of SOUL.md cut');
    expect(r.text.length).toBeLessThanOrEqual(3000);
  });

  it('stays within a small budget, marker included', () => {
    const r = truncateHeadTail('x'.repeat(2000), 500, 'SOUL.md');
    expect(r.text.length).toBeLessThanOrEqual(500);
    expect(r.text.startsWith('x'.repeat(250))).toBe(true);
    expect(r.text.endsWith('x'.repeat(80))).toBe(true);
  });
});
