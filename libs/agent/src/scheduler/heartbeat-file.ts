import { Logger } from '@nestjs/common';
import { readConfinedFile } from '@nestclaw/common';

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

/** The most of HEARTBEAT.md read: standing instructions, not a document. */
export const HEARTBEAT_MAX_BYTES = 64 * 1024;

const logger = new Logger('Heartbeat');
const warned = new Set<string>();

/**
 * What the agent's HEARTBEAT.md asks for (undefined: nothing, or no readable file). Read as the file
 * tools read the workspace: confined to it (a link to config.yaml or anywhere outside is refused),
 * a regular file only (a FIFO would block the gateway), at most HEARTBEAT_MAX_BYTES. A refused file
 * is warned about once and counts as asking for nothing.
 */
export function heartbeatTasksIn(agentDir: string): string | undefined {
  const read = readConfinedFile(agentDir, 'HEARTBEAT.md', { maxBytes: HEARTBEAT_MAX_BYTES });
  if (read.ok) return actionableHeartbeat(read.file.head);
  if (!read.missing && !warned.has(agentDir)) {
    warned.add(agentDir);
    logger.warn(`${agentDir}/HEARTBEAT.md is not read (${read.reason}); replace it with a plain file in the workspace`);
  }
  return undefined;
}
