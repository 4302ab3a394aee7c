import { escapeMrkdwn, slackMrkdwnToText, toSlackMrkdwn } from './slack-mrkdwn';

describe('toSlackMrkdwn', () => {
  it('turns Markdown bold, italic, strike and links into mrkdwn', () => {
    expect(toSlackMrkdwn('**bold** and *it* and ~~gone~~, see [the docs](https://example.com/a)')).toBe(
      '*bold* and _it_ and ~gone~, see <https://example.com/a|the docs>',
    );
  });

  it('escapes & < > everywhere, so a model cannot write <!channel> or a user mention', () => {
    expect(toSlackMrkdwn('<!channel> & <@U123> `a<b`')).toBe('&lt;!channel&gt; &amp; &lt;@U123&gt; `a&lt;b`');
  });

  it('keeps code fences (without the language) and leaves their content unstyled', () => {
    expect(toSlackMrkdwn('```ts\nconst a = **b**;\n```')).toBe('```\nconst a = **b**;\n```');
  });

  it('closes a fence left open', () => {
    expect(toSlackMrkdwn('```\nhalf')).toBe('```\nhalf\n```');
  });

  it('renders headings bold and bullets as •, Chinese untouched', () => {
    expect(toSlackMrkdwn('## 标题\n- 第一项 **重点**')).toBe('*标题*\n• 第一项 *重点*');
  });

  it('reads back as the text a user sees', () => {
    expect(slackMrkdwnToText(escapeMrkdwn('a < b & c > d 你好'))).toBe('a < b & c > d 你好');
  });
});
