import { InterruptedTurnFacts, recoveryOf } from './interrupted-turn.recovery';

const cut = (f: Partial<InterruptedTurnFacts>): InterruptedTurnFacts => ({
  notice: null,
  modelCalls: 1,
  paused: false,
  sideEffects: false,
  ...f,
});

describe('recoveryOf (a turn cut short by a crash)', () => {
  it('asks the model again when its request may have left but no call with side effects was stored', () => {
    expect(recoveryOf(cut({ modelCalls: 1 }), 'rerun')).toBe('rerun');
    expect(recoveryOf(cut({ modelCalls: 3 }), 'rerun')).toBe('rerun');
  });

  it('answers with the notice when a call that can change something may have started', () => {
    expect(recoveryOf(cut({ sideEffects: true }), 'rerun')).toBe('notify');
    expect(recoveryOf(cut({ sideEffects: true }), 'notify')).toBe('notify');
  });

  it('runs a turn the model never saw again, whatever the policy', () => {
    expect(recoveryOf(cut({ modelCalls: 0 }), 'notify')).toBe('rerun');
  });

  it('never asks twice under the notify policy once a request may have left', () => {
    expect(recoveryOf(cut({ modelCalls: 1 }), 'notify')).toBe('notify');
  });

  it('replays a notice already stored, whatever changed since', () => {
    expect(recoveryOf(cut({ notice: 'n' }), 'rerun')).toBe('replay');
    expect(recoveryOf(cut({ notice: 'n', sideEffects: true, paused: true }), 'notify')).toBe('replay');
  });

  it('never answers a turn paused for a pending approval with a notice: its decision resumes it', () => {
    expect(recoveryOf(cut({ paused: true, sideEffects: true }), 'notify')).toBe('rerun');
  });
});
