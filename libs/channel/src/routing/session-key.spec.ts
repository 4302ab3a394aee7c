import { buildSessionKey, SessionKeyInput } from './session-key';

const base: SessionKeyInput = { agentId: 'main', channel: 'telegram', peerKind: 'dm', peerId: '123', dmScope: 'per-channel-peer' };
const links = { alice: ['telegram:123', 'discord:999'] };

describe('buildSessionKey', () => {
  it.each<[string, Partial<SessionKeyInput>, string]>([
    ['dm, main scope: every DM shares one session', { dmScope: 'main' }, 'agent:main:main'],
    ['dm, per-peer', { dmScope: 'per-peer' }, 'agent:main:dm:telegram-123'],
    ['dm, per-channel-peer', {}, 'agent:main:telegram:dm:123'],
    ['dm, per-peer, linked identity', { dmScope: 'per-peer', identityLinks: links }, 'agent:main:dm:alice'],
    [
      'dm on discord, linked to the same person',
      { channel: 'discord', peerId: '999', dmScope: 'per-peer', identityLinks: links },
      'agent:main:dm:alice',
    ],
    ['dm, per-channel-peer, linked identity shares across channels', { identityLinks: links }, 'agent:main:dm:alice'],
    ['dm, unlinked sender with links configured', { peerId: '555', identityLinks: links }, 'agent:main:telegram:dm:555'],
    ['group', { peerKind: 'group', peerId: '-100200' }, 'agent:main:telegram:group:-100200'],
    ['group topic', { peerKind: 'group', peerId: '-100200', threadId: '7' }, 'agent:main:telegram:group:-100200:thread:7'],
    ['channel post', { peerKind: 'channel', peerId: '-100300', dmScope: 'main' }, 'agent:main:telegram:channel:-100300'],
    ['odd characters are made safe for session ids', { agentId: 'my agent', peerId: 'a/b' }, 'agent:my_agent:telegram:dm:a_b'],
  ])('%s', (_name, over, expected) => {
    expect(buildSessionKey({ ...base, ...over })).toBe(expected);
  });
});
