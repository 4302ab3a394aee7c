import { countTokens } from '@nestclaw/common';
import { cutToTokens } from './summarizer';

describe('cutToTokens', () => {
  it('keeps a summary within its budget unchanged', () => {
    expect(cutToTokens('- the cat is called Mochi', 50)).toBe('- the cat is called Mochi');
  });

  it('cuts an overlong summary to its budget at a line break, keeping Chinese characters whole', () => {
    const long = Array.from({ length: 300 }, (_, i) => `- 第${i}条：用户喜欢喝茶`).join('\n');
    const cut = cutToTokens(long, 100);
    expect(countTokens(cut)).toBeLessThanOrEqual(100);
    expect(cut.startsWith('- 第0条：用户喜欢喝茶\n')).toBe(true);
    expect(cut).toMatch(/喜欢喝茶\n\(summary cut to its length budget\)$/);
    expect(cut).not.toContain('\uFFFD');
  });
});
