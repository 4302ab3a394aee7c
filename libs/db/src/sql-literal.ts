import { withoutNul } from '@nestclaw/common';
import { escapeLiteral } from 'pg';

export type SqlValue = string | number | boolean | null | undefined;

/**
 * A value written into SQL text, for the one place parameters cannot go: a statement sent with
 * `BEGIN` in one simple query (DatabaseService.begin). Strings are quoted by pg's escapeLiteral;
 * anything else but finite numbers, booleans and null is refused rather than guessed at.
 */
export function sqlLiteral(value: SqlValue): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`sqlLiteral: ${value} is not a finite number`);
    return String(value);
  }
  if (typeof value === 'string') return escapeLiteral(withoutNul(value));
  throw new TypeError(`sqlLiteral: cannot write a ${typeof value} as SQL`);
}

/**
 * `text` with each `$n` placeholder replaced by the literal of `values[n - 1]`. Placeholders inside
 * quoted literals and identifiers are left alone; a placeholder without a value is an error.
 */
export function withLiterals(text: string, values: SqlValue[]): string {
  let out = '';
  let quote = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '$' && /[0-9]/.test(text[i + 1] ?? '')) {
      let j = i + 1;
      while (/[0-9]/.test(text[j] ?? '')) j++;
      const n = Number(text.slice(i + 1, j));
      if (n < 1 || n > values.length) throw new RangeError(`withLiterals: no value for $${n}`);
      out += sqlLiteral(values[n - 1]);
      i = j - 1;
      continue;
    }
    out += c;
  }
  return out;
}
