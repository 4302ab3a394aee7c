import { applyFrame, fromStored, Item, StoredMessage } from './transcript';

const errorText = (code: string, message: string) => `${code}: ${message}`;
const run = (...frames: Record<string, unknown>[]) =>
  frames.reduce<Item[]>((items, f) => applyFrame(items, { id: 'c1', ...f } as never, errorText), [{ kind: 'user', key: 'u', text: 'hi' }]);

describe('the chat transcript', () => {
  it('joins streamed tokens into one answer and settles it on done', () => {
    const items = run({ type: 'token', text: 'Hel' }, { type: 'token', text: 'lo' }, { type: 'done', reply: 'Hello' });
    expect(items.slice(1)).toEqual([{ kind: 'assistant', key: expect.any(String), text: 'Hello', streaming: false }]);
  });

  it('shows the final reply when no token was streamed', () => {
    expect(run({ type: 'done', reply: 'cached' })[1]).toMatchObject({ kind: 'assistant', text: 'cached' });
  });

  it('puts a tool result on the card of its call, and an answer after it', () => {
    const items = run(
      { type: 'tool_call', callId: 't1', name: 'file_read', input: { path: 'a' } },
      { type: 'tool_result', callId: 't1', name: 'file_read', output: 'content', isError: false },
      { type: 'token', text: 'done reading' },
    );
    expect(items.slice(1).map((i) => i.kind)).toEqual(['tool', 'assistant']);
    expect(items[1]).toMatchObject({ output: 'content', isError: false });
  });

  it('rebuilds a stored session: tool calls with their results, an interrupted answer marked', () => {
    const stored: StoredMessage[] = [
      { seq: 1, turnId: 't', role: 'user', content: 'go', toolCalls: null, toolCallId: null, toolName: null, status: 'answered' },
      {
        seq: 2,
        turnId: 't',
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'c', name: 'shell', arguments: '{"command":"ls"}' }],
        toolCallId: null,
        toolName: null,
        status: 'answered',
      },
      { seq: 3, turnId: 't', role: 'tool', content: 'a.txt', toolCalls: null, toolCallId: 'c', toolName: 'shell', status: 'answered' },
      {
        seq: 4,
        turnId: 't',
        role: 'assistant',
        content: 'There is a',
        toolCalls: null,
        toolCallId: null,
        toolName: null,
        status: 'interrupted',
      },
    ];
    expect(fromStored(stored).map((i) => ({ ...i, key: undefined }))).toEqual([
      { kind: 'user', text: 'go', key: undefined },
      { kind: 'tool', callId: 'c', name: 'shell', input: { command: 'ls' }, output: 'a.txt', key: undefined },
      { kind: 'assistant', text: 'There is a', streaming: false, interrupted: true, key: undefined },
    ]);
  });
});
