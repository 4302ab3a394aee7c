import { ToolError } from '@nestclaw/tool';
import { renderResult } from './render-result';

describe('MCP call results as the model reads them', () => {
  it('joins text blocks, Chinese intact', () => {
    expect(
      renderResult({
        content: [
          { type: 'text', text: '你好' },
          { type: 'text', text: 'world' },
        ],
      }),
    ).toBe('你好\nworld');
  });

  it('describes images instead of pasting base64', () => {
    expect(renderResult({ content: [{ type: 'image', mimeType: 'image/png', data: 'AAAA' }] })).toBe(
      '[image: image/png, 3 bytes, not shown]',
    );
  });

  it('falls back to structured content', () => {
    expect(renderResult({ content: [], structuredContent: { n: 1 } })).toBe('{"n":1}');
  });

  it('turns a result marked isError into a ToolError', () => {
    expect(() => renderResult({ content: [{ type: 'text', text: 'no such repo' }], isError: true })).toThrow(new ToolError('no such repo'));
  });
});
