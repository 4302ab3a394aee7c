/** Share of the budget kept from the start and from the end of an over-long file. */
export const HEAD_SHARE = 0.7;
export const TAIL_SHARE = 0.2;

/**
 * Cuts `text` to at most `budget` characters, keeping its head (~70 %) and tail (~20 %) with a
 * marker in between saying what was cut: the start of a file usually says what it is, the end
 * holds its most recent additions. The marker lives in the remaining ~10 % (on small budgets head
 * and tail shrink in proportion to make room for it). `omitted` counts what was never read from the
 * middle of a file too large to read whole (`text` is then its head and tail): it is always cut.
 */
export function truncateHeadTail(text: string, budget: number, label: string, omitted = 0): { text: string; cut: number } {
  if (text.length <= budget && omitted === 0) return { text, cut: 0 };
  const marker = (cut: number) => `\n[… ${cut} characters of ${label} cut to fit the prompt budget; read the file for the full text …]\n`;
  let head = Math.floor(budget * HEAD_SHARE);
  let tail = Math.floor(budget * TAIL_SHARE);
  const room = budget - marker(text.length + omitted).length;
  if (head + tail > room) {
    const scale = Math.max(0, room) / (head + tail);
    head = Math.floor(head * scale);
    tail = Math.floor(tail * scale);
  }
  // What was read of a partly read file is short (NULs dropped): keep it whole, never twice.
  if (omitted > 0 && head + tail >= text.length) return { text: text.slice(0, room) + marker(omitted), cut: omitted };
  const cut = text.length - head - tail + omitted;
  return { text: text.slice(0, head) + marker(cut) + text.slice(text.length - tail), cut };
}
