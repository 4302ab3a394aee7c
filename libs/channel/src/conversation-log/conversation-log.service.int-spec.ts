import { IntDatabase, openIntDatabase, uniqueId } from '@nestclaw/testing';
import { ConversationLogService } from './conversation-log.service';

describe('ConversationLogService (real database)', () => {
  let int: IntDatabase;
  let log: ConversationLogService;
  beforeAll(async () => {
    int = await openIntDatabase();
    log = ConversationLogService.forDatabase(int.db);
  });
  afterAll(() => int?.close());

  const newSession = async () => {
    const id = uniqueId('s');
    await int.db.query(`INSERT INTO sessions (id, agent_id, channel) VALUES ($1, 'main', 'telegram')`, [id]);
    return id;
  };

  it('recovers only what was logged since the latest checkpoint, as entries and as prompt text', async () => {
    const sessionId = await newSession();
    await log.append({ direction: 'in', channel: 'telegram', endpointId: '42', sessionId, content: 'before the checkpoint' });
    // Older than the checkpoint for certain (timestamps have millisecond precision).
    await int.db.query(`UPDATE conversation_log SET created_at = now() - interval '1 minute' WHERE session_id = $1`, [sessionId]);
    const cp = await log.createCheckpoint(sessionId, 'manual mark');
    await log.append({ direction: 'in', channel: 'telegram', endpointId: '42', sessionId, content: '你好，之后' });
    await log.append({ direction: 'refused', channel: 'telegram', endpointId: '42', sessionId, content: 'not allowed' });

    const recovered = await log.recover(sessionId);
    expect(recovered.checkpoint?.id).toBe(cp.id);
    expect(recovered.entries.map((e) => [e.direction, e.content, e.checkpointId])).toEqual([
      ['in', '你好，之后', cp.id],
      ['refused', 'not allowed', cp.id],
    ]);
    expect(recovered.text).toContain(`checkpoint ${cp.id} (manual`);
    expect(recovered.text).toContain('user via telegram: 你好，之后');
    expect(recovered.text).toContain('refused via telegram: not allowed');
  });

  it('recovers the whole log of a session that has no checkpoint', async () => {
    const sessionId = await newSession();
    await log.append({ direction: 'out', channel: 'telegram', sessionId, content: 'only answer' });
    const recovered = await log.recover(sessionId);
    expect(recovered.checkpoint).toBeNull();
    expect(recovered.entries.map((e) => e.content)).toEqual(['only answer']);
  });

  it('reports an unknown session as session_not_found for checkpoints and recovery', async () => {
    await expect(log.createCheckpoint(uniqueId('missing'))).rejects.toMatchObject({ code: 'session_not_found' });
    await expect(log.recover(uniqueId('missing'))).rejects.toMatchObject({ code: 'session_not_found' });
  });

  it('exports every entry in the time range, oldest first, across pages', async () => {
    const sessionId = await newSession();
    const from = new Date(Date.now() - 1000);
    for (const content of ['one', 'two', 'three', 'four', 'five'])
      await log.append({ direction: 'in', channel: 'discord', sessionId, content });
    const exported: string[] = [];
    for await (const e of log.export(from, new Date(Date.now() + 1000), 2)) if (e.sessionId === sessionId) exported.push(e.content);
    expect(exported).toEqual(['one', 'two', 'three', 'four', 'five']);
  });
});
