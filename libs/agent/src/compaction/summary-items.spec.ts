import type { StoredMessage } from '../session/session.types';
import { splitByTokenShare, toSummaryItems } from './summary-items';

const row = (seq: number, role: StoredMessage['role'], content: string): StoredMessage => ({
  seq,
  turnId: 't',
  role,
  content,
  toolCalls: null,
  toolCallId: null,
  toolName: null,
  status: 'ok',
  createdAt: '',
});

describe('splitByTokenShare', () => {
  it('splits into contiguous parts of about equal tokens, covering every item once', () => {
    const items = Array.from({ length: 10 }, (_, i) => ({ id: i, tokens: 10 }));
    const parts = splitByTokenShare(items, 40);
    expect(parts.length).toBe(3);
    expect(parts.flat().map((i) => i.id)).toEqual(items.map((i) => i.id));
    for (const p of parts) expect(p.reduce((n, i) => n + i.tokens, 0)).toBeLessThanOrEqual(40);
  });

  it('keeps everything in one part when it fits', () => {
    expect(splitByTokenShare([{ tokens: 5 }, { tokens: 5 }], 100)).toHaveLength(1);
  });
});

describe('toSummaryItems', () => {
  it('turns a message too large to summarise into a one-line note that it existed', () => {
    const items = toSummaryItems([row(1, 'user', 'short'), row(2, 'tool', '日志 '.repeat(5000))], 500);
    expect(items[0]).toMatchObject({ oversized: false, text: '#1 user: short' });
    expect(items[1].oversized).toBe(true);
    expect(items[1].text).toMatch(/^#2 tool: \[a large message of about \d+ tokens was here, not summarised; it began: "日志 日志/);
    expect(items[1].tokens).toBeLessThan(100);
  });
});
