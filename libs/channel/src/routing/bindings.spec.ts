import { Binding, resolveAgent, RouteInput } from './bindings';

const bindings: Binding[] = [
  { agent: 'vip', match: { channel: 'discord', peer: { kind: 'group', id: 'c1' } } },
  { agent: 'guild-agent', match: { channel: 'discord', guild: 'g1' } },
  { agent: 'team-agent', match: { channel: 'slack', team: 't1' } },
  { agent: 'work-bot', match: { channel: 'telegram', account: 'work' } },
  { agent: 'tg-default', match: { channel: 'telegram' } },
  { agent: 'fallback', match: {} },
];

const msg = (over: Partial<RouteInput>): RouteInput => ({ channel: 'discord', peer: { kind: 'group', id: 'c9' }, ...over });

describe('resolveAgent precedence: peer > guild > team > account > channel > default', () => {
  it.each<[string, RouteInput, string, string]>([
    ['peer binding beats the guild binding of the same guild', msg({ peer: { kind: 'group', id: 'c1' }, guildId: 'g1' }), 'vip', 'peer'],
    ['guild binding for another channel in the guild', msg({ guildId: 'g1' }), 'guild-agent', 'guild'],
    ['team binding', msg({ channel: 'slack', teamId: 't1' }), 'team-agent', 'team'],
    [
      'account binding beats the channel binding',
      msg({ channel: 'telegram', accountId: 'work', peer: { kind: 'dm', id: '1' } }),
      'work-bot',
      'account',
    ],
    [
      'channel binding for another account',
      msg({ channel: 'telegram', accountId: 'home', peer: { kind: 'dm', id: '1' } }),
      'tg-default',
      'channel',
    ],
    ['default binding when nothing else matches', msg({ guildId: 'g2' }), 'fallback', 'default'],
  ])('%s', (_name, input, agentId, matchedBy) => {
    expect(resolveAgent(bindings, input)).toEqual({ agentId, matchedBy });
  });

  it('a binding naming a peer never matches at a less specific level', () => {
    expect(resolveAgent([{ agent: 'vip', match: { channel: 'discord', peer: { kind: 'group', id: 'c1' } } }], msg({}))).toEqual({
      agentId: 'default',
      matchedBy: 'default',
    });
  });

  it('falls back to the "default" agent without bindings', () => {
    expect(resolveAgent([], msg({}))).toEqual({ agentId: 'default', matchedBy: 'default' });
  });

  it('a peer binding of the wrong kind does not match', () => {
    expect(resolveAgent(bindings, msg({ peer: { kind: 'dm', id: 'c1' }, guildId: 'g1' })).agentId).toBe('guild-agent');
  });
});
