import { countTokens } from '@nestclaw/common';
import { chunkText } from './chunker';

describe('chunker', () => {
  it('keeps a short text as one chunk', () => {
    expect(chunkText('短句。Short sentence.', { tokens: 400, overlap: 80 })).toEqual([
      { text: '短句。Short sentence.', tokenCount: countTokens('短句。') + countTokens('Short sentence.') },
    ]);
  });

  it('splits Chinese text without spaces at sentence ends into chunks of at most the token target', () => {
    const text = '我们今天讨论了飞书插件的配置问题。'.repeat(200);
    const chunks = chunkText(text, { tokens: 400, overlap: 80 });
    expect(chunks.length).toBeGreaterThan(5);
    for (const c of chunks) expect(c.tokenCount).toBeLessThanOrEqual(400);
    for (const c of chunks) expect(c.text.endsWith('。')).toBe(true);
  });

  it('repeats the end of one chunk at the start of the next (overlap)', () => {
    const sentences = Array.from({ length: 120 }, (_, i) => `Sentence number ${i} talks about topic ${i}.`);
    const chunks = chunkText(sentences.join(' '), { tokens: 100, overlap: 30 });
    for (let i = 1; i < chunks.length; i++) {
      const lastOfPrevious = chunks[i - 1].text
        .split('.')
        .filter((s) => s.trim())
        .pop()!
        .trim();
      expect(chunks[i].text).toContain(lastOfPrevious);
    }
  });

  it('cuts a single sentence longer than a chunk at token boundaries', () => {
    const chunks = chunkText('无标点的长句'.repeat(500), { tokens: 100, overlap: 20 });
    expect(chunks.length).toBeGreaterThan(3);
    for (const c of chunks) expect(c.tokenCount).toBeLessThanOrEqual(100);
  });

  it('keeps line breaks between sentences', () => {
    expect(chunkText('User: hi?\nAssistant: hello', { tokens: 400, overlap: 80 })[0].text).toBe('User: hi?\nAssistant: hello');
  });
});
