import { parseCommand } from './command-parser';

describe('parseCommand', () => {
  it.each([
    ['/status', '/', { name: 'status', args: [] }],
    ['/status@nestclaw_bot', '/', { name: 'status', args: [] }],
    ['/approve abc-123', '/', { name: 'approve', args: ['abc-123'] }],
    ['  /NEW ', '/', { name: 'new', args: [] }],
    ['!stop', '!', { name: 'stop', args: [] }],
    ['/compact', '/', { name: 'compact', args: [] }],
    ['/cron rm 0b0e', '/', { name: 'cron', args: ['rm', '0b0e'] }],
  ])('%s with prefix %s', (text, prefix, expected) => {
    expect(parseCommand(text, prefix)).toEqual({ ...expected, prefix });
  });

  it('treats unknown commands and plain text as messages for the model', () => {
    expect(parseCommand('/weather Paris', '/')).toBeUndefined();
    expect(parseCommand('status', '/')).toBeUndefined();
  });
});
