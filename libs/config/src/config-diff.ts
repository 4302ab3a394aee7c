import { isDeepStrictEqual } from 'node:util';

/** One value that differs between two configurations, named by its dotted path (`models.default.model`). */
export interface ConfigChange {
  path: string;
  /** Absent when the key is new. */
  before?: unknown;
  /** Absent when the key is removed. */
  after?: unknown;
  /** A secret that changed: both sides show "[redacted]", so the change is said here. */
  secretChanged?: boolean;
}

const isMapping = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function leafChanges(before: unknown, after: unknown, path: string[], out: string[][]): void {
  if (isDeepStrictEqual(before, after)) return;
  // Mappings are compared key by key; lists and scalars whole (a list's order is its meaning).
  if (isMapping(before) && isMapping(after)) {
    for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) leafChanges(before[key], after[key], [...path, key], out);
    return;
  }
  out.push(path);
}

const at = (root: unknown, path: string[]): unknown => path.reduce<unknown>((node, key) => (isMapping(node) ? node[key] : undefined), root);

/**
 * What changes between two configurations (or two sections of one). Found on the real values, shown
 * with the redacted ones: a changed secret is reported as changed without either value.
 */
export function diffConfig(
  before: unknown,
  after: unknown,
  shown: { before: unknown; after: unknown } = { before, after },
): ConfigChange[] {
  const paths: string[][] = [];
  leafChanges(before, after, [], paths);
  return paths.map((path) => {
    const change: ConfigChange = { path: path.join('.') };
    const b = at(shown.before, path);
    const a = at(shown.after, path);
    if (b !== undefined) change.before = b;
    if (a !== undefined) change.after = a;
    if (b !== undefined && a !== undefined && isDeepStrictEqual(a, b)) change.secretChanged = true;
    return change;
  });
}
