/**
 * Characters a command must not contain: controls (but tab; newlines are refused later with their
 * own reason), format characters (zero-width, bidi, U+FEFF, soft hyphen), every separator but the
 * ASCII space (U+00A0, U+3000, U+2028, U+2029, …), private-use, unassigned code points and lone
 * surrogates. `trim()` would silently drop some of these while the shell still receives them, so
 * they are refused instead, wherever they appear.
 */
const ODD = /[\p{Cc}\p{Cf}\p{Z}\p{Co}\p{Cn}\p{Cs}]/u;
const FINE = new Set([' ', '\t', '\n', '\r']);

export function oddCharacter(text: string): string | undefined {
  for (const ch of text) {
    if (FINE.has(ch) || !ODD.test(ch)) continue;
    const code = ch.codePointAt(0)!;
    const kind = code < 0x20 || (code >= 0x7f && code <= 0x9f) ? 'control' : 'invisible or unusual whitespace';
    return `${kind} character U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  }
  return undefined;
}
