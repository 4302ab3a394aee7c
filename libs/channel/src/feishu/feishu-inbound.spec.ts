import { feishuCardActionToInbound, feishuMessageToInbound, FeishuMessageEvent } from './feishu-inbound';

const BOT = 'ou_bot';
const event = (message: Partial<FeishuMessageEvent['message']>): FeishuMessageEvent => ({
  event_id: 'ev1',
  sender: { sender_id: { open_id: 'ou_lin' }, sender_type: 'user' },
  message: {
    message_id: 'om_1',
    create_time: '1795824139564',
    chat_id: 'oc_1',
    chat_type: 'p2p',
    message_type: 'text',
    content: JSON.stringify({ text: '你好' }),
    ...message,
  },
});

describe('a Feishu message event as an inbound message', () => {
  it('takes a p2p text message as a DM to the bot, keyed by its message_id', () => {
    const m = feishuMessageToInbound(event({}), BOT);
    expect(m).toMatchObject({
      channel: 'feishu',
      platformMessageId: 'om_1',
      chat: { id: 'oc_1', type: 'dm' },
      sender: { id: 'ou_lin', isBot: false },
      mentioned: true,
      text: '你好',
      raw: { message_id: 'om_1', chat_id: 'oc_1', event_id: 'ev1' },
    });
    expect(m.timestamp).toBe(new Date(1795824139564).toISOString());
  });

  it('counts a group message as mentioned only when the bot is among the mentions, and drops its placeholder', () => {
    const mentions = [
      { key: '@_user_1', id: { open_id: BOT }, name: 'nestclaw' },
      { key: '@_user_2', id: { open_id: 'ou_kai' }, name: 'Kai' },
    ];
    const m = feishuMessageToInbound(
      event({ chat_type: 'group', content: JSON.stringify({ text: '@_user_1 问一下 @_user_2 的意见' }), mentions }),
      BOT,
    );
    expect(m.chat.type).toBe('group');
    expect(m.mentioned).toBe(true);
    expect(m.text).toBe('问一下 @Kai 的意见');
    const other = feishuMessageToInbound(event({ chat_type: 'group', mentions: [mentions[1]] }), BOT);
    expect(other.mentioned).toBe(false);
    expect(feishuMessageToInbound(event({ chat_type: 'group', mentions }), undefined).mentioned).toBe(false);
  });

  it('flattens a rich-text post (title, text, links, @-mentions) and lists its images as media', () => {
    const content = {
      title: '标题',
      content: [
        [
          { tag: 'at', user_id: BOT },
          { tag: 'text', text: ' 看看 ' },
          { tag: 'a', href: 'https://example.com', text: '这个' },
        ],
        [{ tag: 'img', image_key: 'img_1' }],
      ],
    };
    const m = feishuMessageToInbound(
      event({
        message_type: 'post',
        chat_type: 'group',
        content: JSON.stringify(content),
        mentions: [{ key: '@_user_1', id: { open_id: BOT }, name: 'bot' }],
      }),
      BOT,
    );
    expect(m.text).toBe('标题\n看看 [这个](https://example.com)');
    expect(m.media).toEqual([{ kind: 'photo', fileId: 'img_1' }]);
  });

  it('marks a message sent by an app as from a bot, and a file as a document without text', () => {
    const m = feishuMessageToInbound(
      {
        ...event({ message_type: 'file', content: JSON.stringify({ file_key: 'f1', file_name: '报告.pdf' }) }),
        sender: { sender_type: 'app' },
      },
      BOT,
    );
    expect(m.sender.isBot).toBe(true);
    expect(m.text).toBe('');
    expect(m.media).toEqual([{ kind: 'document', fileId: 'f1', fileName: '报告.pdf' }]);
  });
});

describe('a Feishu card action as an inbound button press', () => {
  it('carries the button data, the pressing user and the card, keyed by the event id', () => {
    const m = feishuCardActionToInbound(
      {
        operator: { open_id: 'ou_lin' },
        action: { value: { data: 'ap:x:a' } },
        context: { open_message_id: 'om_card', open_chat_id: 'oc_1' },
      },
      'ev9',
    );
    expect(m).toMatchObject({
      platformMessageId: 'cb:ev9',
      sender: { id: 'ou_lin' },
      chat: { id: 'oc_1' },
      callback: { id: 'ev9', data: 'ap:x:a', messageId: 'om_card' },
    });
  });

  it('ignores a press whose value is not ours', () => {
    expect(
      feishuCardActionToInbound({ operator: { open_id: 'ou_lin' }, action: { value: 'x' }, context: { open_chat_id: 'oc_1' } }, 'e'),
    ).toBeUndefined();
  });
});
