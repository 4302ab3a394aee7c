import { INVALID_FRAME, parseClientFrame } from './ws-frames';

describe('parseClientFrame', () => {
  it('routes a valid chat frame to its type', () => {
    expect(parseClientFrame('{"type":"chat","id":"c1","message":" hi "}')).toEqual({
      event: 'chat',
      data: { type: 'chat', id: 'c1', message: 'hi' },
    });
  });

  it.each([
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
