/**
 * `text` without U+0000. PostgreSQL text cannot hold it (an insert fails), and a model or a terminal
 * may treat it as an end of string: text read from a file, a tool's output or a value written into
 * SQL is cleaned here, the one copy of the rule.
 */
export function withoutNul(text: string): string {
  return text.replaceAll('\0', '');
}
