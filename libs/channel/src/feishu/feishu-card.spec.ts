import { feishuCard, feishuCardMarkdown } from './feishu-card';

describe('a Feishu card', () => {
  it('is card JSON 2.0 shared by everyone in the chat, holding the markdown', () => {
    const card = JSON.parse(feishuCard('你好 **世界**')) as Record<string, unknown>;
    expect(card).toEqual({
      schema: '2.0',
      config: { update_multi: true },
      body: { elements: [{ tag: 'markdown', content: '你好 **世界**' }] },
    });
    expect(feishuCardMarkdown(feishuCard('你好 **世界**'))).toBe('你好 **世界**');
  });

  it('turns buttons into callback buttons whose value carries the button data', () => {
    const card = JSON.parse(
      feishuCard('ok?', [
        [
          { text: 'Approve', data: 'ap:1:a' },
          { text: 'Deny', data: 'ap:1:d' },
        ],
      ]),
    ) as {
      body: { elements: { tag: string; type?: string; behaviors?: unknown }[] };
    };
    expect(card.body.elements.slice(1)).toEqual([
      {
        tag: 'button',
        text: { tag: 'plain_text', content: 'Approve' },
        type: 'primary',
        behaviors: [{ type: 'callback', value: { data: 'ap:1:a' } }],
      },
      {
        tag: 'button',
        text: { tag: 'plain_text', content: 'Deny' },
        type: 'danger',
        behaviors: [{ type: 'callback', value: { data: 'ap:1:d' } }],
      },
    ]);
  });
});
