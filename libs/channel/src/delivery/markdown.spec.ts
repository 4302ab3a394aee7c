import { telegramHtmlToText, toDiscordMarkdown, toFeishuMarkdown, toTelegramHtml } from './markdown';

describe('toTelegramHtml', () => {
  it.each([
    ['**bold** and *italic*', '<b>bold</b> and <i>italic</i>'],
    ['`a < b` & c', '<code>a &lt; b</code> &amp; c'],
    ['~~gone~~', '<s>gone</s>'],
    ['[docs](https://example.com/a?b=1&c=2)', '<a href="https://example.com/a?b=1&amp;c=2">docs</a>'],
    ['# Title', '<b>Title</b>'],
    ['- item', '• item'],
    ['> quoted', '<blockquote>quoted</blockquote>'],
    ['snake_case_name stays', 'snake_case_name stays'],
    ['2 * 3 * 4', '2 * 3 * 4'],
  ])('%s → %s', (md, html) => {
    expect(toTelegramHtml(md)).toBe(html);
  });

  it('renders a fenced block as pre/code with its language and escapes its content literally', () => {
    expect(toTelegramHtml('```ts\nif (a < b && **c**) {}\n```')).toBe(
      '<pre><code class="language-ts">if (a &lt; b &amp;&amp; **c**) {}</code></pre>',
    );
  });

  it('round-trips to the visible text', () => {
    expect(telegramHtmlToText(toTelegramHtml('**x** < y & `z`'))).toBe('x < y & z');
  });
});

describe('toDiscordMarkdown', () => {
  it('defuses mass mentions outside code', () => {
    expect(toDiscordMarkdown('hi @everyone')).toBe('hi @\u200beveryone');
    expect(toDiscordMarkdown('```\n@here\n```')).toBe('```\n@here\n```');
  });
});

describe('Markdown for Feishu cards', () => {
  it('shows card tags such as <at id=all> literally outside code and leaves code blocks alone', () => {
    expect(toFeishuMarkdown('hi <at id=all></at> **all**\n```\n<at id=all></at>\n```')).toBe(
      'hi &lt;at id=all>&lt;/at> **all**\n```\n<at id=all></at>\n```',
    );
  });

  it('keeps Chinese and emoji as they are', () => {
    expect(toFeishuMarkdown('# 标题\n- 第一项 😀')).toBe('# 标题\n- 第一项 😀');
  });
});
