import { safeCut, splitMessage, splitRendered, toBlocks } from './message-splitter';
import { telegramHtmlToText, toTelegramHtml } from './markdown';

const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const fencesBalanced = (s: string) => (s.match(/^```/gm) ?? []).length % 2 === 0;

describe('splitMessage', () => {
  it('returns a short message unchanged', () => {
    expect(splitMessage('hello', 4096)).toEqual(['hello']);
  });

  it('splits on paragraph boundaries first', () => {
    const a = 'a'.repeat(60);
    const b = 'b'.repeat(60);
    expect(splitMessage(`${a}\n\n${b}`, 100)).toEqual([a, b]);
  });

  it('packs several small paragraphs into one message', () => {
    expect(splitMessage('one\n\ntwo\n\nthree!!', 16)).toEqual(['one\n\ntwo', 'three!!']);
  });

  it('never leaves a code fence open: a long block is closed and reopened with its language', () => {
    const code = ['```python', ...Array.from({ length: 40 }, (_, i) => `print(${i})  # ${'x'.repeat(10)}`), '```'].join('\n');
    const parts = splitMessage(`intro\n\n${code}\n\noutro`, 200);
    expect(parts.length).toBeGreaterThan(3);
    for (const p of parts) {
      expect(p.length).toBeLessThanOrEqual(200);
      expect(fencesBalanced(p)).toBe(true);
    }
    expect(parts.filter((p) => p.startsWith('```python')).length).toBeGreaterThan(2);
  });

  it('never splits a surrogate pair', () => {
    const text = '😀'.repeat(100);
    const parts = splitMessage(text, 33);
    for (const p of parts) {
      expect(loneSurrogate.test(p)).toBe(false);
      expect(p.length).toBeLessThanOrEqual(33);
    }
    expect(parts.join('')).toBe(text);
  });

  it('splits long Chinese prose at sentence ends and keeps every character', () => {
    const text = '这是一个很长的句子，用来测试拆分。'.repeat(700); // ~11,900 code units, no paragraph breaks
    const parts = splitMessage(text, 4096);
    expect(parts.length).toBe(3);
    for (const p of parts) {
      expect(p.length).toBeLessThanOrEqual(4096);
      expect(p.endsWith('。')).toBe(true);
    }
    expect(parts.join('')).toBe(text);
  });

  it('closes a fence the model left open', () => {
    const blocks = toBlocks('text\n\n```js\nconst a = 1;');
    expect(blocks[1]).toEqual({ text: '```js\nconst a = 1;\n```', fence: '```js' });
  });

  it('counts UTF-16 code units as Telegram does', () => {
    expect(safeCut('a😀b', 2)).toBe(1);
    expect(safeCut('a😀b', 3)).toBe(3);
  });
});

describe('splitRendered', () => {
  it('re-splits parts whose HTML escaping outgrows the limit', () => {
    const text = 'a<&'.repeat(1500); // 4500 units of Markdown, about 12,000 of HTML
    const parts = splitRendered(text, 4096, toTelegramHtml);
    for (const p of parts) expect(p.rendered.length).toBeLessThanOrEqual(4096);
    expect(parts.map((p) => telegramHtmlToText(p.rendered)).join('')).toBe(text);
  });
});
