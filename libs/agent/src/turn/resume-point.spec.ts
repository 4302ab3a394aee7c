import type { Approval } from '@nestclaw/tool';
import type { StoredMessage } from '../session/session.types';
import { resumePoint } from './resume-point';

const row = (seq: number, m: Partial<StoredMessage>): StoredMessage => ({
  seq,
  turnId: 'turn',
  role: 'user',
  content: '',
  toolCalls: null,
  toolCallId: null,
  toolName: null,
  status: 'ok',
  createdAt: '',
  ...m,
});

const approval = { id: 'a1', turnId: 'turn', toolCallId: 'c2', status: 'approved' } as Approval;

describe('resumePoint', () => {
  const calls = [
    { id: 'c1', name: 'file_list', arguments: '{"path":"."}' },
    { id: 'c2', name: 'shell', arguments: '{"command":"wc -l"}' },
  ];
  const history = [row(1, { turnId: 'old', content: 'earlier' }), row(2, { turnId: 'old', role: 'assistant', content: 'reply' })];
  const turn = [
    row(3, { content: 'do it', status: 'pending' }),
    row(4, { role: 'assistant', content: 'on it', toolCalls: calls }),
    row(5, { role: 'tool', content: 'a.txt', toolCallId: 'c1', toolName: 'file_list' }),
  ];

  it('rebuilds the prompt before the paused call and keeps the results already stored', () => {
    const p = resumePoint(approval, 'sys', history, turn);
    if (!p.ok) throw new Error(p.why);
    expect(p.messages).toEqual([
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'earlier' },
      { role: 'assistant', content: 'reply' },
      { role: 'user', content: 'do it' },
    ]);
    expect(p.iteration).toBe(2);
    expect(p.step.calls).toEqual(calls);
    expect([...p.step.stored!.results.keys()]).toEqual(['c1']);
    expect(p.step.decided).toBe(approval);
  });

  it('refuses to resume a turn that was closed meanwhile', () => {
    const closed = [{ ...turn[0], status: 'interrupted' }, ...turn.slice(1)];
    expect(resumePoint(approval, 'sys', history, closed)).toEqual({ ok: false, why: 'turn turn is no longer open' });
  });

  it('refuses when the call is not in the turn', () => {
    expect(resumePoint({ ...approval, toolCallId: 'zz' }, 'sys', history, turn)).toMatchObject({ ok: false });
  });
});
