/**
 * Told when each SQL statement starts (every statement of every pool client: raw SQL, Prisma, pool
 * housekeeping); returns what to call when it ends, or nothing to ignore it. The composition root
 * sets it for tracing, so libs/db stays unaware of OpenTelemetry and costs one read when unset.
 */
export type StatementObserver = (text: string, name: string | undefined) => ((error?: Error | null) => void) | undefined;

let current: StatementObserver | undefined;

export function observeStatements(observer: StatementObserver | undefined): void {
  current = observer;
}

export function statementObserver(): StatementObserver | undefined {
  return current;
}
