import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Whether HEARTBEAT.md asks for anything: headings, comments, blank lines, empty bullets and
 * ticked checklist items are not work. Nothing left means no model call at all.
 */
export function actionableHeartbeat(text: string): string | undefined {
  const lines = text
    .replace(/<!--[\s\S]*?-->/g, '')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#') && !/^[-*+]\s*(\[[xX]\].*)?$/.test(l) && !/^[-*+]\s*\[\s?\]\s*$/.test(l));
  return lines.length ? lines.join('\n') : undefined;
}

/** The model's answer when a heartbeat found nothing worth telling anyone; such replies are not delivered. */
export const HEARTBEAT_NOTHING = 'HEARTBEAT_OK';

export const heartbeatPrompt = (tasks: string) =>
  `[heartbeat] Periodic check. Do what these standing instructions from HEARTBEAT.md ask, if anything is due now. ` +
  `Reply ${HEARTBEAT_NOTHING} and nothing else when there is nothing new to report.\n\n${tasks}`;

/** What the agent's HEARTBEAT.md asks for (undefined: nothing, or no file). */
export function heartbeatTasksIn(agentDir: string): string | undefined {
  try {
    return actionableHeartbeat(readFileSync(join(agentDir, 'HEARTBEAT.md'), 'utf8'));
  } catch {
    return undefined; // no file: nothing to do
  }
}
