import { slackActionToInbound, slackEventToInbound, SlackPayload } from './slack-inbound';

const BOT = 'U0BOT';
const event = (e: Partial<NonNullable<SlackPayload['event']>>): SlackPayload => ({
  team_id: 'T1',
  event_id: 'Ev1',
  event: { type: 'message', channel: 'C1', channel_type: 'channel', user: 'U1', text: 'hi', ts: '1700000000.000100', ...e },
});

describe('slackEventToInbound', () => {
  it('maps a DM: mentioned, the team filled, the id the channel and ts', () => {
    const m = slackEventToInbound(event({ channel: 'D1', channel_type: 'im', text: '你好 &lt;b&gt; &amp;' }), BOT)!;
    expect(m).toMatchObject({
      platformMessageId: 'D1:1700000000.000100',
      chat: { id: 'D1', type: 'dm' },
      sender: { id: 'U1' },
      teamId: 'T1',
      mentioned: true,
      text: '你好 <b> &',
    });
  });

  it('maps message and app_mention of one channel message to the same id, both mentioned, the mention stripped', () => {
    const text = `<@${BOT}> what now?`;
    const a = slackEventToInbound(event({ text }), BOT)!;
    const b = slackEventToInbound(event({ type: 'app_mention', text, channel_type: undefined }), BOT)!;
    expect(a).toEqual(b);
    expect(a).toMatchObject({ mentioned: true, text: 'what now?', chat: { type: 'group' } });
  });

  it('leaves a channel message without a mention unmentioned, and gives a thread reply its thread', () => {
    expect(slackEventToInbound(event({ thread_ts: '1699999999.000001' }), BOT)).toMatchObject({
      mentioned: false,
      threadId: '1699999999.000001',
    });
  });

  it('skips our own posts, other bots and edits', () => {
    expect(slackEventToInbound(event({ user: BOT }), BOT)).toBeUndefined();
    expect(slackEventToInbound(event({ bot_id: 'B2' }), BOT)).toBeUndefined();
    expect(slackEventToInbound(event({ subtype: 'message_changed' }), BOT)).toBeUndefined();
  });
});

describe('slackActionToInbound', () => {
  it('maps a button press to a callback carrying its value and the card it came from', () => {
    const m = slackActionToInbound({
      type: 'block_actions',
      trigger_id: 'tr1',
      user: { id: 'U1', username: 'dana' },
      team: { id: 'T1' },
      channel: { id: 'D1' },
      container: { channel_id: 'D1', message_ts: '1.2' },
      actions: [{ action_id: 'nc_0_0', value: 'ap:x:a' }],
    })!;
    expect(m).toMatchObject({
      platformMessageId: 'act:tr1',
      chat: { id: 'D1', type: 'dm' },
      teamId: 'T1',
      callback: { id: 'tr1', data: 'ap:x:a', messageId: '1.2' },
    });
  });
});
