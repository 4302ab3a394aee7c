import { randomUUID } from 'node:crypto';
import { IntDatabase, openIntDatabase, uniqueId } from '@nestclaw/testing';
import { SessionRepository } from './session.repository';
import { SessionHoldRepository } from './session-hold.repository';
import type { OpenTurn } from './session.types';
import { OpenedTurnRows, TurnRepository } from './turn.repository';

describe('SessionRepository and TurnRepository (real database)', () => {
  let int: IntDatabase;
  let repo: TurnRepository;
  let sessions: SessionRepository;
  beforeAll(async () => {
    int = await openIntDatabase();
    repo = new TurnRepository(int.db);
    sessions = new SessionRepository(int.db);
  });
  afterAll(() => int?.close());

  const turn = (sessionId: string, content: string, extra: Partial<OpenTurn> = {}): OpenTurn => ({
    sessionId,
    turnId: randomUUID(),
    agentId: 'main',
    content,
    channel: 'http',
    create: true,
    historyLimit: 50,
    replica: 'replica-under-test',
    ...extra,
  });
  /** An open that took the session (these sessions are never busy elsewhere). */
  const open = async (t: OpenTurn) => (await repo.openTurn(t)) as OpenedTurnRows;

  it('creates the session on its first turn and stores the user message as pending', async () => {
    const id = uniqueId('s');
    const opened = await repo.openTurn(turn(id, 'hello'));
    expect(opened).toEqual({ history: [], agentId: 'main', created: true, summaries: [], recalled: [] });
    const messages = await sessions.listMessages(id, 0, 10);
    expect(messages.map((m) => [m.seq, m.role, m.content, m.status])).toEqual([[1, 'user', 'hello', 'pending']]);
  });

  it('reports an unknown session as missing when the turn may not create it', async () => {
    const id = uniqueId('s');
    expect(await repo.openTurn(turn(id, 'hi', { create: false }))).toBeNull();
    expect(await sessions.exists(id)).toBe(false);
  });

  it('returns the earlier messages, oldest first, as the history of the next turn', async () => {
    const id = uniqueId('s');
    const first = turn(id, 'first');
    await repo.openTurn(first);
    await repo.recordProgress({
      sessionId: id,
      turnId: first.turnId,
      messages: [{ role: 'assistant', content: 'echo: first' }],
      calls: [],
      close: { status: 'ok', reply: 'echo: first', channel: 'http' },
    });
    const second = await open(turn(id, 'second'));
    expect(second?.created).toBe(false);
    expect(second?.history.map((m) => [m.seq, m.role, m.content, m.status])).toEqual([
      [1, 'user', 'first', 'ok'],
      [2, 'assistant', 'echo: first', 'ok'],
    ]);
  });

  it('keeps only the newest historyLimit messages in the history', async () => {
    const id = uniqueId('s');
    for (const text of ['one', 'two', 'three']) await repo.openTurn(turn(id, text));
    const next = await open(turn(id, 'four', { historyLimit: 2 }));
    expect(next?.history.map((m) => m.content)).toEqual(['two', 'three']);
  });

  it('adds the tokens and cost of recorded model calls to the session', async () => {
    const id = uniqueId('s');
    const t = turn(id, 'count me');
    await repo.openTurn(t);
    const call = {
      provider: 'openai-compatible',
      model: 'm',
      modelName: 'm',
      attempt: 1,
      isFallback: false,
      usage: { inputTokens: 100, outputTokens: 20, cachedInputTokens: 0 },
      costUsd: 0.00014,
      latencyMs: 5,
      status: 'ok' as const,
    };
    await repo.recordProgress({ sessionId: id, turnId: t.turnId, messages: [], calls: [call, call] });
    const summary = (await sessions.listRecent(100)).find((s) => s.id === id);
    expect(summary).toMatchObject({ inputTokens: 200, outputTokens: 40, costUsd: 0.00028 });
  });

  it("refuses a paired token another principal's session", async () => {
    const id = uniqueId('s');
    await repo.openTurn(turn(id, 'mine', { principalId: 'token-a' }));
    expect(await repo.openTurn(turn(id, 'not yours', { principalId: 'token-b', create: false }))).toBeNull();
    expect((await sessions.listMessages(id, 0, 10)).map((m) => m.content)).toEqual(['mine']);
  });

  it('marks turns left pending by a crash as interrupted', async () => {
    const id = uniqueId('s');
    await repo.openTurn(turn(id, 'cut off'));
    expect((await new SessionHoldRepository(int.db).interruptOpenTurns('another-replica')).turns).toBeGreaterThanOrEqual(1);
    expect((await sessions.listMessages(id, 0, 10)).map((m) => m.status)).toEqual(['interrupted']);
  });

  it('loads one turn in order with the history before it', async () => {
    const id = uniqueId('s');
    const before = turn(id, 'before');
    await repo.openTurn(before);
    const paused = turn(id, 'run a tool');
    await repo.openTurn(paused);
    await repo.recordProgress({
      sessionId: id,
      turnId: paused.turnId,
      messages: [{ role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'shell', arguments: '{"command":"ls"}' }] }],
      calls: [],
    });
    const loaded = await repo.loadTurn(id, paused.turnId, 10);
    expect(loaded.history.map((m) => m.content)).toEqual(['before']);
    expect(loaded.turn.map((m) => [m.role, m.content])).toEqual([
      ['user', 'run a tool'],
      ['assistant', ''],
    ]);
    expect(loaded.turn[1].toolCalls).toEqual([{ id: 'c1', name: 'shell', arguments: '{"command":"ls"}' }]);
  });
});
