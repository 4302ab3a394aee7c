import { menuChoice, ScreenPrompt } from './screen-reader';

/** How a question on the screen was settled: decided by a person, or expired (no answer in time). */
export type PromptOutcome = 'approve' | 'deny' | 'expired';

/**
 * The keys that give a prompt its answer, as tmux key names or single characters. A `[y/N]` prompt
 * gets `y` or `n` and Enter; a menu gets arrows from the highlighted option to the chosen one and
 * Enter (a digit selects at once in some CLIs and is only a hint in others; arrows work in all).
 * An expired prompt gets the safe choice: `n`, or Esc for a menu. Nothing here ever says yes on its own.
 */
export function keysFor(prompt: ScreenPrompt, outcome: PromptOutcome): string[] {
  if (prompt.kind === 'yes-no') return [outcome === 'approve' ? 'y' : 'n', 'Enter'];
  if (outcome === 'expired') return ['Escape'];
  const target = menuChoice(prompt.options, outcome);
  if (target === undefined) return ['Escape']; // no option means what was decided: cancel the menu
  const moves = target - prompt.cursor;
  return [...Array<string>(Math.abs(moves)).fill(moves > 0 ? 'Down' : 'Up'), 'Enter'];
}
