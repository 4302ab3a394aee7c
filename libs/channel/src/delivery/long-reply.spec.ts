import type { ChannelAdapter } from '../channel.port';
import { longReply } from './long-reply';

const adapter = (withFiles: boolean) =>
  ({
    capabilities: { maxMessageLength: 100 },
    ...(withFiles ? { sendFile: async () => ({ platformMessageId: '1' }) } : {}),
  }) as unknown as ChannelAdapter;
const lines = (n: number) => Array.from({ length: n }, (_, i) => `第${i}行 line ${i}`).join('\n');

describe('long reply', () => {
  it('leaves a reply of up to three messages as it is', () => {
    expect(longReply(adapter(true), 'x'.repeat(300), '2025-05-01T10:20:30Z')).toBeUndefined();
  });

  it('leaves any reply as it is where the platform sends no files', () => {
    expect(longReply(adapter(false), 'x'.repeat(5000), '2025-05-01T10:20:30Z')).toBeUndefined();
  });

  it('sends a longer one as a head ending on a line, and the whole text as answer-<time>.md in UTF-8', () => {
    const text = lines(200);
    const long = longReply(adapter(true), text, '2025-05-01T10:20:30.000Z')!;
    expect(long.file.name).toBe('answer-20250501-102030.md');
    expect(long.file.content.toString('utf8')).toBe(text);
    const [head, note] = long.head.split('\n\n');
    expect(text.startsWith(head)).toBe(true);
    expect(head.length).toBeLessThanOrEqual(800);
    expect(text.split('\n')).toContain(head.split('\n').at(-1));
    expect(note).toBe(`… the whole answer (200 lines, ${text.length} characters) is in answer-20250501-102030.md.`);
  });

  it('closes a code block the head cut open, so the note is not inside it', () => {
    const long = longReply(adapter(true), `\`\`\`\n${lines(200)}\n\`\`\``, '2025-05-01T10:20:30Z')!;
    expect(long.head.split('\n\n')[0].endsWith('\n```')).toBe(true);
  });
});
