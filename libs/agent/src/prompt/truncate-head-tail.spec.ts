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

  it('always cuts a file read only in part, counting the unread middle in the marker', () => {
    const long = truncateHeadTail('H'.repeat(2000) + 'T'.repeat(600), 1000, 'SOUL.md', 180_000_000);
    expect(long.text).toMatch(/^H{500,}\n\[… \d+ characters of SOUL\.md cut .*\]\nT{100,}$/s);
    expect(long.text).toContain(`${long.cut} characters`);
    expect(long.cut).toBeGreaterThan(180_001_000);
    expect(long.text.length).toBeLessThanOrEqual(1000);
    // Little was left of what was read (a sparse file's NULs): kept once, not as head and again as tail.
    const short = truncateHeadTail('HEAD tail', 500, 'SOUL.md', 180_000_000);
    expect(short).toEqual({ text: expect.stringMatching(/^HEAD tail\n\[… 180000000 characters of SOUL\.md cut/), cut: 180_000_000 });
    expect(short.text.length).toBeLessThanOrEqual(500);
  });
});
