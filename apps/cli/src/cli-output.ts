import { isNestclawError } from '@nestclaw/common';

/** User-facing lines go to stdout; notes, progress decoration and errors to stderr. */
export function out(line = ''): void {
  process.stdout.write(`${line}\n`);
}

export function note(line = ''): void {
  process.stderr.write(`${line}\n`);
}

/** The message of anything thrown, without a stack trace: the CLI talks to people, not to a debugger. */
export function messageOf(e: unknown): string {
  if (isNestclawError(e) || e instanceof Error) return e.message;
  return String(e);
}

/**
 * Ends the process once stdout and stderr are flushed. Explicit because a command may leave handles
 * behind (pg pool timers, an embedded database, a paused stdin) that would otherwise keep it alive.
 */
export function finish(code: number): void {
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}

const useColor = () => !!process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (code: number) => (s: string) => (useColor() ? `\x1b[${code}m${s}\x1b[0m` : s);
export const green = paint(32);
export const yellow = paint(33);
export const red = paint(31);
export const dim = paint(2);
