import { countTokens } from '@nestclaw/common';
import type { RecallHit } from './recall.service';

export const SECTION_OPEN = '<recalled_memories>';
export const SECTION_CLOSE = '</recalled_memories>';
const HEADER =
  'Notes recalled from long-term memory about this person (may be outdated; the conversation wins when they disagree). Source and id in brackets:';

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

/**
 * Stored text is anyone's words (a chat message, a file): a `</recalled_memories>` in it must not end
 * the block and let what follows read as instructions outside it. Any tag-like mention of the block's
 * name loses its `<` (the look-alike ‹ keeps it readable); squash already keeps each memory on one line.
 */
const BLOCK_TAG = /<(?=\s*\/?\s*recalled_memories)/gi;
export const neutralised = (s: string) => s.replace(BLOCK_TAG, '‹');

/** Drops what the prompt already carries: turns in the history window, or text said there verbatim. */
export function notInHistory(hits: readonly RecallHit[], history: readonly { turnId: string; content: string }[]): RecallHit[] {
  const turns = new Set(history.map((h) => `transcript:${h.turnId}`));
  const said = history.map((h) => squash(h.content)).filter((s) => s.length > 0);
  return hits.filter((h) => {
    if (h.sourceKey && turns.has(h.sourceKey)) return false;
    const text = squash(h.content);
    return !said.some((s) => s.includes(text));
  });
}

/**
 * The recalled-memories section of a prompt: best hits first, each line whole, stopping before the
 * token budget is exceeded. Undefined when nothing fits.
 */
export function memorySection(
  hits: readonly RecallHit[],
  maxTokens: number,
  count: (s: string) => number = countTokens,
): string | undefined {
  let used = count(`${SECTION_OPEN}\n${HEADER}\n${SECTION_CLOSE}`);
  const lines: string[] = [];
  for (const h of hits) {
    const line = `- [${h.source}, ${h.createdAt.slice(0, 10)}, id ${h.id}] ${neutralised(squash(h.content))}`;
    const cost = count(line) + 1;
    if (used + cost > maxTokens) continue;
    used += cost;
    lines.push(line);
  }
  if (lines.length === 0) return undefined;
  return [SECTION_OPEN, HEADER, ...lines, SECTION_CLOSE].join('\n');
}
