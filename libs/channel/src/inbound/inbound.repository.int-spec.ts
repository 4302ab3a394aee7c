import { ReplicaRegistry } from '@nestclaw/db';
import { IntDatabase, openIntDatabase, uniqueId } from '@nestclaw/testing';
import type { InboundMessage } from '../channel.port';
import { InboundRepository } from './inbound.repository';

describe('InboundRepository (real database)', () => {
  let int: IntDatabase;
  let repo: InboundRepository;
  /** A second replica on the same database, alive while the test runs. */
  let replica: ReplicaRegistry;
  let other: ReplicaRegistry;
  let otherRepo: InboundRepository;
  beforeAll(async () => {
    int = await openIntDatabase();
    replica = new ReplicaRegistry(int.db, true);
    other = new ReplicaRegistry(int.db, true);
    await replica.onApplicationBootstrap();
    await other.onApplicationBootstrap();
    repo = new InboundRepository(int.db, replica);
    otherRepo = new InboundRepository(int.db, other);
  });
  afterAll(async () => {
    await replica?.beforeApplicationShutdown();
    await other?.beforeApplicationShutdown();
    await int?.close();
  });

  /** Each test uses a channel name of its own, so its rows are the only ones it can see. */
  const message = (channel: string, platformMessageId: string, extra: Partial<InboundMessage> = {}): InboundMessage => ({
    channel,
    platformMessageId,
    chat: { id: 'chat-1', type: 'dm' },
    sender: { id: 'alice' },
    mentioned: false,
    text: `text of ${platformMessageId}`,
    media: [],
    raw: { message_id: platformMessageId },
    timestamp: new Date().toISOString(),
    ...extra,
  });

  it('records a platform message once and returns null for its redelivery', async () => {
    const channel = uniqueId('tg');
    const id = await repo.record(message(channel, '1'), 'key', 'received');
    expect(id).toEqual(expect.any(String));
    expect(await repo.record(message(channel, '1'), 'key', 'received')).toBeNull();
  });

  it('keeps the same platform id on two channels apart', async () => {
    const id = uniqueId('x');
    expect(await repo.record(message(`${id}-a`, '7'), 'key', 'received')).not.toBeNull();
    expect(await repo.record(message(`${id}-b`, '7'), 'key', 'received')).not.toBeNull();
  });

  it('claims unanswered messages of a dead replica oldest first, with their payload and session key, once', async () => {
    const channel = uniqueId('tg');
    const first = await otherRepo.record(message(channel, '1'), 'k1', 'received');
    const answered = await otherRepo.record(message(channel, '2'), 'k2', 'received');
    await otherRepo.record(message(channel, '3', { text: '中文也要保存' }), 'k3', 'received');
    await otherRepo.finish(answered!, 'answered');
    await int.db.query(`UPDATE replicas SET last_seen = now() - interval '7 seconds' WHERE id = $1`, [other.id]);
    const open = await repo.claimUnanswered([channel]);
    expect(await repo.claimUnanswered([channel])).toEqual([]);
    expect(open.map((o) => [o.sessionKey, o.message.platformMessageId, o.message.text])).toEqual([
      ['k1', '1', 'text of 1'],
      ['k3', '3', '中文也要保存'],
    ]);
    expect(open[0].id).toBe(first);
  });

  it('never claims a message a live replica is answering', async () => {
    const channel = uniqueId('tg');
    await repo.record(message(channel, '1'), 'k', 'received');
    expect(await otherRepo.claimUnanswered([channel])).toEqual([]);
  });

  it('does not claim messages recorded as refused', async () => {
    const channel = uniqueId('tg');
    await repo.record(message(channel, '1'), 'k', 'refused');
    await int.db.query(`UPDATE inbound_messages SET replica_id = 'gone' WHERE channel = $1`, [channel]);
    expect(await repo.claimUnanswered([channel])).toEqual([]);
  });

  it('remembers the newest message per chat and ignores button presses', async () => {
    const channel = uniqueId('tg');
    await repo.record(message(channel, '10', { chat: { id: 'a', type: 'dm' } }), 'k', 'answered');
    await repo.record(message(channel, '11', { chat: { id: 'a', type: 'dm' } }), 'k', 'answered');
    await repo.record(message(channel, '20', { chat: { id: 'b', type: 'dm' } }), 'k', 'answered');
    await repo.record(
      message(channel, 'cb-1', { chat: { id: 'a', type: 'dm' }, callback: { id: 'cb-1', data: 'approve:x' } }),
      'k',
      'answered',
    );
    expect(Object.fromEntries(await repo.lastSeen(channel))).toEqual({ a: '11', b: '20' });
  });
});
