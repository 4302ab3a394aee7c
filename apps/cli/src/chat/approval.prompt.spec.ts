import { parseAnswer } from './approval.prompt';

describe('approval answers', () => {
  it.each([
    ['y', 'approve'],
    [' Yes ', 'approve'],
    ['r', 'remember'],
    ['always', 'remember'],
    ['n', 'deny'],
    ['deny', 'deny'],
  ])('reads %j as %s', (text, answer) => expect(parseAnswer(text)).toBe(answer));

  it.each(['', 'maybe', 'yy'])('asks again after %j', (text) => expect(parseAnswer(text)).toBeUndefined());
});
