import { countChatTokens, countTokens } from './token-count';

describe('countTokens', () => {
  it('counts with a real BPE tokenizer, not characters ÷ 4', () => {
    expect(countTokens('hello world')).toBe(2);
    // Chinese runs near one token per character: ÷ 4 would say 3.
    expect(countTokens('你好，帮我查一下明天的天气')).toBeGreaterThanOrEqual(8);
  });

  it('gives the same count for a long text from its cache', () => {
    const text = '长江大桥 and the weather report. '.repeat(50);
    expect(countTokens(text)).toBe(countTokens(text));
  });

  it('counts a chat request with per-message framing and tool definitions', () => {
    const tools = [{ name: 'current_time', description: 'Current date and time.', parameters: {} }];
    const bare = countChatTokens([{ content: 'hi' }]);
    expect(countChatTokens([{ content: 'hi' }, { content: 'hi' }])).toBe(bare + countTokens('hi') + 4);
    expect(countChatTokens([{ content: 'hi' }], tools)).toBe(bare + countTokens(JSON.stringify(tools)));
  });

  it('counts each list of tool definitions from its own JSON, whatever was counted before', () => {
    const a = { name: 'current_time', description: 'Current date and time.', parameters: {} };
    const b = { name: 'web_search', description: 'Searches the web for pages about a query, newest first.', parameters: {} };
    const bare = countChatTokens([]);
    for (const tools of [[a], [a, b], [b, a], [b], [a, b], [a], [{ ...a, description: 'Changed.' }]]) {
      expect(countChatTokens([], [...tools])).toBe(bare + countTokens(JSON.stringify(tools)));
    }
  });

  it('still counts right once its cache has been turned over', () => {
    const text = '长江大桥 and the weather report.';
    const first = countTokens(text);
    for (let i = 0; i < 25_000; i++) countTokens(`filler ${i}`);
    expect(countTokens(text)).toBe(first);
  });
});
