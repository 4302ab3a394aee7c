import { isSafeLink, parseMarkdown } from './markdown';

describe('Markdown of model output', () => {
  it('allows links to http, https and mailto only', () => {
    expect(['https://example.com', 'http://example.com/a?b', 'mailto:a@example.com', 'HTTPS://EXAMPLE.COM'].map(isSafeLink)).toEqual([
      true,
      true,
      true,
      true,
    ]);
  });

  it('refuses script and data links however they are spelled', () => {
    const hostile = [
      'javascript:alert(1)',
      'JavaScript:alert(1)',
      'java\tscript:alert(1)',
      ' javascript:alert(1)',
      'data:text/html,x',
      'vbscript:x',
    ];
    expect(hostile.filter(isSafeLink)).toEqual([]);
  });

  it('keeps raw HTML as text: no html tokens, the tags in the text', () => {
    const tokens = parseMarkdown('<script>alert(1)</script>\n\nhi <img src=x onerror=alert(1)>');
    const all = tokens.flatMap((t) => [t, ...(t.children ?? [])]);
    expect(all.filter((t) => t.type.startsWith('html'))).toEqual([]);
    expect(all.map((t) => t.content).join('')).toContain('<img src=x onerror=alert(1)>');
  });

  it('leaves a javascript: link as text instead of a link', () => {
    const inline = parseMarkdown('[x](javascript:alert(1))')[1].children ?? [];
    expect(inline.some((t) => t.type === 'link_open')).toBe(false);
  });
});
