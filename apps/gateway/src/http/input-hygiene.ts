/**
 * Characters refused wherever client input may reach PostgreSQL: NUL (a `text` column rejects it, so
 * it used to surface as a 500) and unpaired UTF-16 surrogates (broken encoding that would be stored
 * silently as U+FFFD). Refused with a 400 naming the field, never stripped: silently changing what a
 * client sent would make the stored transcript disagree with it.
 */
// eslint-disable-next-line no-control-regex -- matching NUL is the point
const INVALID_CHAR = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** What is wrong with `s`, or undefined when it is clean. */
export function invalidCharIn(s: string): string | undefined {
  const m = INVALID_CHAR.exec(s);
  if (!m) return undefined;
  return m[0] === '\u0000' ? 'contains a NUL character (U+0000)' : 'contains an unpaired UTF-16 surrogate';
}

/**
 * The first string (value or object key) in `value` holding an invalid character, as
 * `"<path>: <why>"`. Walks iteratively: a deeply nested body must not overflow the stack.
 */
export function findInvalidText(value: unknown, root: string): string | undefined {
  const stack: [unknown, string][] = [[value, root]];
  while (stack.length) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      const why = invalidCharIn(v);
      if (why) return `${path || 'value'}: ${why}`;
    } else if (v !== null && typeof v === 'object') {
      for (const key of Object.keys(v)) {
        const at = path ? `${path}.${key}` : key;
        const why = invalidCharIn(key);
        if (why) return `${path || 'key'}: a key ${why}`;
        stack.push([(v as Record<string, unknown>)[key], at]);
      }
    }
  }
  return undefined;
}
