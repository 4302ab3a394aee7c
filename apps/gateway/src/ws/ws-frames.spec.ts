import { INVALID_FRAME, parseClientFrame } from './ws-frames';

describe('parseClientFrame', () => {
  it('routes a valid chat frame to its type', () => {
    expect(parseClientFrame('{"type":"chat","id":"c1","message":" hi "}')).toEqual({
      event: 'chat',
      data: { type: 'chat', id: 'c1', message: 'hi' },
    });
  });

  it('routes a cancel naming a session, and subscribe/unsubscribe frames, to their types', () => {
    expect(parseClientFrame('{"type":"cancel","id":"k1","sessionId":"s-1"}')).toEqual({
      event: 'cancel',
      data: { type: 'cancel', id: 'k1', sessionId: 's-1' },
    });
    expect(parseClientFrame('{"type":"subscribe","id":"w1","sessionId":"s-1"}').event).toBe('subscribe');
    expect(parseClientFrame('{"type":"unsubscribe","id":"w1"}').event).toBe('unsubscribe');
  });

  it('routes a subscription to every session, which takes no session id', () => {
    expect(parseClientFrame('{"type":"subscribe_sessions","id":"w2"}')).toEqual({
      event: 'subscribe_sessions',
      data: { type: 'subscribe_sessions', id: 'w2' },
    });
  });

  it.each([
    ['{"type":"subscribe","id":"w1"}', 'w1', /sessionId/],
    ['{"type":"subscribe","id":"w1","sessionId":"../x"}', 'w1', /sessionId/],
    [Buffer.from('{}'), null, /binary/],
    ['{"type":', null, /not valid JSON/],
    ['null', null, /expected object/],
    ['{"type":"chat","id":"x","message":"a\\u0000"}', 'x', /message: contains a NUL/],
    [`{"type":"chat","id":"${'i'.repeat(101)}","message":"m"}`, null, /id:/],
    ['{"type":"constructor","id":"t"}', 't', /type/],
  ])('turns %s into an invalid_frame event, keeping a usable id', (raw, id, why) => {
    const { event, data } = parseClientFrame(raw);
    expect(event).toBe(INVALID_FRAME);
    expect(data).toMatchObject({ id });
    expect((data as { message: string }).message).toMatch(why);
  });
});
