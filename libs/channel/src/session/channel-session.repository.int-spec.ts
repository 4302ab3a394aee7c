import { IntDatabase, openIntDatabase, uniqueId } from '@nestclaw/testing';
import { ChannelSessionRepository } from './channel-session.repository';

describe('ChannelSessionRepository (real database)', () => {
  let int: IntDatabase;
  let repo: ChannelSessionRepository;
  beforeAll(async () => {
    int = await openIntDatabase();
    repo = new ChannelSessionRepository(int.db);
  });
  afterAll(() => int?.close());

  it('points a routing key at the same session until /new moves it', async () => {
    const key = uniqueId('telegram:dm');
    const first = await repo.current(key);
    expect(await repo.current(key)).toBe(first);
    const moved = await repo.startNew(key);
    expect(moved).not.toBe(first);
    expect(await repo.current(key)).toBe(moved);
  });

  it('has no usage for a session before its first turn', async () => {
    expect(await repo.usage(uniqueId('s'))).toBeNull();
  });
});
