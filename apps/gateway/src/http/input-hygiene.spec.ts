import { findInvalidText, invalidCharIn } from './input-hygiene';

describe('input hygiene', () => {
  it('accepts ordinary text, emoji (surrogate pairs) and Chinese', () => {
    expect(invalidCharIn('hello 😀 你好，世界')).toBeUndefined();
  });

  it('names NUL and unpaired surrogates, high or low', () => {
    expect(invalidCharIn('a\u0000b')).toBe('contains a NUL character (U+0000)');
    expect(invalidCharIn('a\ud800')).toBe('contains an unpaired UTF-16 surrogate');
    expect(invalidCharIn('\udc00a')).toBe('contains an unpaired UTF-16 surrogate');
  });

  it('reports the path of the first bad string, in values and in keys', () => {
    expect(findInvalidText({ messages: [{ role: 'user', content: [{ type: 'text', text: 'x\u0000' }] }] }, '')).toBe(
      'messages.0.content.0.text: contains a NUL character (U+0000)',
    );
    expect(findInvalidText({ ok: { 'bad\u0000key': 1 } }, '')).toBe('ok: a key contains a NUL character (U+0000)');
    expect(findInvalidText('a\u0000', 'sessionId')).toBe('sessionId: contains a NUL character (U+0000)');
    expect(findInvalidText({ a: 1, b: [true, null, 'fine'] }, '')).toBeUndefined();
  });

  it('walks 100,000 levels of nesting without overflowing the stack', () => {
    let deep: unknown = 'x\u0000';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(findInvalidText(deep, 'body')).toMatch(/contains a NUL/);
  });
});
