import { LiveAnswers, LiveFrame } from './live-answers';

const started = { type: 'started' as const, sessionId: 's-1', turnId: 't-1' };

describe('LiveAnswers', () => {
  it('gives a late watcher the text streamed so far as one token, then every frame as it comes', () => {
    const live = new LiveAnswers();
    const answer = live.recorder();
    answer.see(started);
    answer.see({ type: 'token', text: '你好，' });
    answer.see({ type: 'token', text: 'wor' });
    const seen: LiveFrame[] = [];
    live.watch('s-1', (f) => seen.push(f));
    answer.see({ type: 'token', text: 'ld' });
    expect(seen).toEqual([
      { type: 'token', text: '你好，wor' },
      { type: 'token', text: 'ld' },
    ]);
  });

  it('keeps only the step being streamed: a tool call starts the text afresh (the finished step is stored)', () => {
    const live = new LiveAnswers();
    const answer = live.recorder();
    answer.see(started);
    answer.see({ type: 'token', text: 'let me look' });
    answer.see({ type: 'tool_call', id: 'c1', name: 'file_read', input: { path: 'a' } });
    answer.see({ type: 'token', text: 'found it' });
    const seen: LiveFrame[] = [];
    live.watch('s-1', (f) => seen.push(f));
    expect(seen).toEqual([{ type: 'token', text: 'found it' }]);
  });

  it('forgets the answer when its chat ends, and stops a watcher that unsubscribes', () => {
    const live = new LiveAnswers();
    const answer = live.recorder();
    answer.see(started);
    answer.see({ type: 'token', text: 'a' });
    const seen: LiveFrame[] = [];
    const stop = live.watch('s-1', (f) => seen.push(f));
    stop();
    answer.see({ type: 'token', text: 'b' });
    answer.end();
    expect(seen).toEqual([{ type: 'token', text: 'a' }]);
    const late: LiveFrame[] = [];
    live.watch('s-1', (f) => late.push(f));
    expect(late).toEqual([]);
  });
});

describe('LiveAnswers watchers', () => {
  it('follow a session from before its turn starts streaming, and on into its next turn', () => {
    const live = new LiveAnswers();
    const seen: LiveFrame[] = [];
    live.watch('s-1', (f) => seen.push(f));
    const first = live.recorder();
    first.see(started);
    first.see({ type: 'token', text: '第一' });
    first.end();
    const second = live.recorder();
    second.see({ ...started, turnId: 't-2' });
    second.see({ type: 'token', text: '第二' });
    expect(seen).toEqual([
      { type: 'token', text: '第一' },
      { type: 'token', text: '第二' },
    ]);
  });

  it("never send one session's answer to another session's watcher", () => {
    const live = new LiveAnswers();
    const seen: LiveFrame[] = [];
    live.watch('s-2', (f) => seen.push(f));
    const answer = live.recorder();
    answer.see(started);
    answer.see({ type: 'token', text: 'private' });
    expect(seen).toEqual([]);
  });
});
