import { randomUUID } from 'node:crypto';

/** Client-chosen session ids: short, printable, no whitespace (they appear in URLs and logs). */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9:._@-]{0,199}$/;

export function newSessionId(): string {
  return randomUUID();
}
