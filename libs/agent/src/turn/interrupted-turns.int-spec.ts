import { randomUUID } from 'node:crypto';
import { configSchema } from '@nestclaw/config';
import { IntDatabase, openIntDatabase, uniqueId } from '@nestclaw/testing';
import { ToolRegistry } from '@nestclaw/tool';
import { SessionRepository } from '../session/session.repository';
import { TurnRepository } from '../session/turn.repository';
import type { LinkedTurn } from '../session/session.types';
import { CloseStage } from './close.stage';
import { InterruptedTurnRepository } from './interrupted-turn.repository';
import type { InterruptedTurnPolicy } from './interrupted-turn.recovery';
import { interruptedNotice, InterruptedTurns } from './interrupted-turns';

describe('InterruptedTurns and the close stage (real database)', () => {
  let int: IntDatabase;
  let sessions: TurnRepository;
  let reads: SessionRepository;
  let recovery: InterruptedTurns;
  let close: CloseStage;
  beforeAll(async () => {
    int = await openIntDatabase();
    sessions = new TurnRepository(int.db);
    reads = new SessionRepository(int.db);
    const config = configSchema.parse({});
    const notices = new InterruptedTurnRepository(int.db);
    recovery = new InterruptedTurns(notices, new ToolRegistry({ get: () => config } as never));
    // Remembering and hooks play no part in settling a linked turn.
    close = new CloseStage(sessions, notices, {} as never, {} as never, {} as never);
  });
  afterAll(() => int?.close());

  /** What the open stage decides for a linked turn that did not finish, closed as the close stage does; undefined: run it again. */
  const turns = {
    async settle(linked: LinkedTurn, input: { channel: string; endpointId?: string; interruptedTurns?: InterruptedTurnPolicy }) {
      const r = await recovery.recoveryFor(linked, input.interruptedTurns);
      if (r.kind === 'rerun') return undefined;
      const { sessionId, turnId } = linked;
      const usage = { inputTokens: 0, outputTokens: 0, costUsd: 0 };
      return close.settled(
        r.kind === 'replay'
          ? { kind: 'replay', result: { sessionId, turnId, reply: r.notice, usage, interrupted: false, replayed: true } }
          : { kind: 'notify', linked, input: { ...input, message: linked.content }, notice: r.notice, why: r.why },
        {},
      );
    },
  };

  const call = { modelName: 'fake', provider: 'openai-compatible', model: 'fake-model', attempt: 1, isFallback: false };

  /** A channel turn as a kill leaves it: the user row pending, and a `started` call row when the request may have left. */
  async function cutShort(content: string, requestStarted: boolean) {
    const sessionId = uniqueId('s');
    const turnId = randomUUID();
    const inboundKey = `telegram:${uniqueId('in')}`;
    await sessions.openTurn({
      sessionId,
      turnId,
      agentId: 'main',
      content,
      channel: 'telegram',
      create: true,
      historyLimit: 50,
      inboundKey,
      replica: 'replica-under-test',
    });
    if (requestStarted) await (await sessions.openCall(sessionId, turnId, call)).commit();
    const linked = (await sessions.findByInbound(inboundKey))!;
    return { sessionId, turnId, inboundKey, linked };
  }

  it('answers a turn whose model request may have left with one stored notice, and replays it on the next recovery', async () => {
    const { sessionId, turnId, inboundKey, linked } = await cutShort('天气 in Berlin?', true);
    const first = await turns.settle(linked, { channel: 'telegram', endpointId: '42', interruptedTurns: 'notify' });
    expect(first).toMatchObject({ sessionId, turnId, reply: interruptedNotice('天气 in Berlin?'), replayed: true });
    expect(first?.reply).toBe('nestclaw restarted while answering "天气 in Berlin?" and the answer was lost. Send it again to retry.');
    // The next recovery (the notice was stored but not yet delivered) finds it, whatever the policy is by then.
    const again = await turns.settle((await sessions.findByInbound(inboundKey))!, { channel: 'telegram', interruptedTurns: 'rerun' });
    expect(again?.reply).toBe(first?.reply);
    const rows = await reads.listMessages(sessionId, 0, 10);
    expect(rows.map((m) => [m.role, m.status])).toEqual([
      ['user', 'interrupted'],
      ['assistant', 'notice'],
    ]);
    const { rows: calls } = await int.db.query<{ status: string; error_code: string }>(
      `SELECT status, error_code FROM llm_calls WHERE session_id = $1`,
      [sessionId],
    );
    expect(calls).toEqual([{ status: 'interrupted', error_code: 'process_exited' }]);
  });

  it('leaves a turn cut short before any model request to be run again', async () => {
    const { sessionId, linked } = await cutShort('never asked', false);
    expect(await turns.settle(linked, { channel: 'telegram', interruptedTurns: 'notify' })).toBeUndefined();
    expect((await reads.listMessages(sessionId, 0, 10)).map((m) => m.role)).toEqual(['user']);
  });

  it('runs it again under the rerun policy, given explicitly', async () => {
    const { sessionId, linked } = await cutShort('ask again', true);
    expect(await turns.settle(linked, { channel: 'telegram', interruptedTurns: 'rerun' })).toBeUndefined();
    expect((await reads.listMessages(sessionId, 0, 10)).map((m) => m.role)).toEqual(['user']);
  });

  /** What the tool step stores before a call that may change something starts (or after a read-only step). */
  async function storeToolCall(sessionId: string, turnId: string, name: string, args: object, result?: string) {
    const id = `call_${name}`;
    await sessions.recordProgress({
      sessionId,
      turnId,
      messages: [
        { role: 'assistant', content: '', toolCalls: [{ id, name, arguments: JSON.stringify(args) }] },
        ...(result === undefined ? [] : [{ role: 'tool' as const, content: result, toolCallId: id, toolName: name }]),
      ],
      calls: [],
    });
  }

  it('asks the model again by default for a turn whose request may have left but that ran no tool', async () => {
    const { sessionId, linked } = await cutShort('no tools here', true);
    expect(await turns.settle(linked, { channel: 'telegram' })).toBeUndefined();
    expect(await turns.settle(linked, { channel: 'telegram', interruptedTurns: 'rerun' })).toBeUndefined();
    expect((await reads.listMessages(sessionId, 0, 10)).map((m) => m.role)).toEqual(['user']);
  });

  it('asks again after read-only tool calls (file_read, GET), and the re-run keeps one user row', async () => {
    const { sessionId, turnId, inboundKey, linked } = await cutShort('读一下 notes.md', true);
    await storeToolCall(sessionId, turnId, 'file_read', { path: 'notes.md' }, 'hello');
    await storeToolCall(sessionId, turnId, 'http_request', { method: 'GET', url: 'https://example.com' }, 'HTTP 200');
    await (await sessions.openCall(sessionId, turnId, call)).commit();
    expect(await turns.settle((await sessions.findByInbound(inboundKey))!, { channel: 'telegram' })).toBeUndefined();
    // What the re-run does first: the attempt's rows go, its user row stays the turn's only one, its ledger rows stay.
    await sessions.reopenTurn(linked, 50);
    const rows = await reads.listMessages(sessionId, 0, 10);
    expect(rows.map((m) => [m.role, m.status, m.content])).toEqual([['user', 'pending', '读一下 notes.md']]);
    const { rows: calls } = await int.db.query<{ status: string }>(`SELECT status FROM llm_calls WHERE turn_id = $1 ORDER BY id`, [turnId]);
    expect(calls).toHaveLength(2);
    // The dead run's attempts still `started` are closed: nothing runs them any more (issue 24: a replica that
    // takes over a dead one's turn must not leave its ledger rows in flight for ever).
    expect(calls.map((c) => c.status)).not.toContain('started');
  });

  it.each([
    ['shell', { command: 'echo hi >> log.txt' }],
    ['file_write', { path: 'a.txt', content: 'x' }],
    ['http_request', { method: 'POST', url: 'https://example.com/orders', body: '{}' }],
    ['a_plugin_tool_nobody_marked', {}],
  ])('answers with the notice under the default policy once a %s call may have started', async (name, args) => {
    const { sessionId, turnId, linked } = await cutShort(`do ${name}`, true);
    await storeToolCall(sessionId, turnId, name, args);
    const settled = await turns.settle(linked, { channel: 'telegram', interruptedTurns: 'rerun' });
    expect(settled?.reply).toBe(interruptedNotice(`do ${name}`));
    expect((await reads.listMessages(sessionId, 0, 10)).map((m) => [m.role, m.status])).toEqual([
      ['user', 'interrupted'],
      ['assistant', 'ok'],
      ['assistant', 'notice'],
    ]);
  });

  it('keeps a long message short in the notice, cut between characters, never inside one', () => {
    const notice = interruptedNotice(`${'长'.repeat(59)}😀😀 tail`);
    expect(notice).toBe(`nestclaw restarted while answering "${'长'.repeat(59)}😀…" and the answer was lost. Send it again to retry.`);
  });
});
