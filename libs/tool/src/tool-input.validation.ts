/** Largest tool-call arguments accepted (file_write content included). */
export const MAX_TOOL_ARGUMENT_BYTES = 1024 * 1024;
const MAX_DEPTH = 32;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Refuses tool input that could not be stored or would be read differently later: NUL characters
 * (PostgreSQL text and jsonb reject them), lone UTF-16 surrogates (not valid Unicode), oversize
 * arguments and absurd nesting. Runs before anything about the call is persisted (audit rows,
 * approval rows), so bad input is a clear tool error, never an internal one.
 */
export function toolInputProblem(raw: string, value: unknown): string | undefined {
  const bytes = Buffer.byteLength(raw, 'utf8');
  if (bytes > MAX_TOOL_ARGUMENT_BYTES) return `arguments are ${bytes} bytes; the limit is ${MAX_TOOL_ARGUMENT_BYTES}`;
  return walk(value, 'input', 0);
}

function walk(v: unknown, at: string, depth: number): string | undefined {
  if (depth > MAX_DEPTH) return `${at} is nested more than ${MAX_DEPTH} levels deep`;
  if (typeof v === 'string') return stringProblem(v, at);
  if (Array.isArray(v)) {
    for (const [i, x] of v.entries()) {
      const bad = walk(x, `${at}[${i}]`, depth + 1);
      if (bad) return bad;
    }
    return undefined;
  }
  if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      const badKey = stringProblem(k, `a key of ${at}`);
      if (badKey) return badKey;
      const bad = walk(x, `${at}.${k.slice(0, 40)}`, depth + 1);
      if (bad) return bad;
    }
  }
  return undefined;
}

function stringProblem(s: string, at: string): string | undefined {
  if (s.includes('\0')) return `${at} contains a NUL character`;
  if (LONE_SURROGATE.test(s)) return `${at} is not valid Unicode (a lone surrogate)`;
  return undefined;
}
