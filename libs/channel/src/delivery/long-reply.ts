import type { ChannelAdapter } from '../channel.port';

/** A reply longer than this many platform messages goes as a file (where the platform takes one). */
export const FILE_AFTER_MESSAGES = 3;
/** How much of it the chat shows above the file. */
const HEAD_CHARS = 800;

/** A long reply as the chat gets it: a short head and the whole text as a document. */
export interface LongReply {
  head: string;
  file: { name: string; content: Buffer };
}

/**
 * A reply too long to read as a run of messages (a CLI's log, diff or file), split into a head that
 * ends on a line and says where the rest is, and the whole text as `answer-<time>.md` (UTF-8). `at`
 * names the file: the inbound message's time, so a retry after a crash sends the same name.
 */
export function longReply(adapter: ChannelAdapter, text: string, at: string): LongReply | undefined {
  if (!adapter.sendFile || text.length <= FILE_AFTER_MESSAGES * adapter.capabilities.maxMessageLength) return undefined;
  const name = `answer-${fileTime(at)}.md`;
  const cut = text.lastIndexOf('\n', HEAD_CHARS);
  let head = text.slice(0, cut > HEAD_CHARS / 2 ? cut : HEAD_CHARS).trimEnd();
  // A code block cut open would swallow the note under it.
  if ((head.match(/^```/gm) ?? []).length % 2) head += '\n```';
  const lines = text.split('\n').length;
  return {
    head: `${head}\n\n… the whole answer (${lines} lines, ${text.length} characters) is in ${name}.`,
    file: { name, content: Buffer.from(text, 'utf8') },
  };
}

/** `2025-05-01T10:20:30.000Z` → `20250501-102030` (UTC), a name every platform and file system takes. */
function fileTime(at: string): string {
  const d = new Date(at);
  const iso = (Number.isNaN(d.getTime()) ? new Date() : d).toISOString();
  return `${iso.slice(0, 10).replace(/-/g, '')}-${iso.slice(11, 19).replace(/:/g, '')}`;
}
