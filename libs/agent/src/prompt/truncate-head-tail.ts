/** Share of the budget kept from the start and from the end of an over-long file. */
export const HEAD_SHARE = 0.7;
export const TAIL_SHARE = 0.2;

/**
 * Cuts `text` to at most `budget` characters, keeping its head (~70 %) and tail (~20 %) with a
 * marker in between saying what was cut: the start of a file usually says what it is, the end
 * holds its most recent additions.
 */
export function truncateHeadTail(text: string, budget: number, label: string): { text: string; cut: number } {
  if (text.length <= budget) return { text, cut: 0 };
  const head = Math.floor(budget * HEAD_SHARE);
  const tail = Math.floor(budget * TAIL_SHARE);
  const cut = text.length - head - tail;
  const marker = `\n[… ${cut} characters of ${label} cut to fit the prompt budget; read the file for the full text …]\n`;
  return { text: text.slice(0, head) + marker + text.slice(text.length - tail), cut };
}
