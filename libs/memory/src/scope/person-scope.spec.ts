import { personOf } from './person-scope';

describe('person scope of a turn', () => {
  const links = { alice: ['telegram:111', 'discord:222'], owner: ['telegram:999'] };

  it('is the owner on the gateway transports without a paired token', () => {
    for (const channel of ['http', 'sse', 'ws', 'openai', 'cli']) expect(personOf({ channel }, links)).toBe('owner');
  });

  it('is the paired token for token turns', () => {
    expect(personOf({ channel: 'http', principalId: 'tok1' }, links)).toBe('token:tok1');
  });

  it('is the linked person for a linked channel sender, the same across platforms', () => {
    expect(personOf({ channel: 'telegram', endpointId: '111' }, links)).toBe('alice');
    expect(personOf({ channel: 'discord', endpointId: '222' }, links)).toBe('alice');
    expect(personOf({ channel: 'telegram', endpointId: '999' }, links)).toBe('owner');
  });

  it('is the channel identity for an unlinked sender, and nobody without a sender', () => {
    expect(personOf({ channel: 'telegram', endpointId: '555' }, links)).toBe('telegram:555');
    expect(personOf({ channel: 'telegram' }, links)).toBeUndefined();
  });
});
