/**
 * A strict lexer for the tiny shell subset the allowlist admits: words (bare, '…' or "…" without
 * expansions) separated by blanks, and plain pipes. Everything else is refused with the reason a
 * human would give (odd and invisible characters are refused before it runs). It never interprets: the shell parser (sh-syntax) double-checks the structure.
 */
export type LexResult = { ok: true; segments: string[][]; spans: [number, number][] } | { ok: false; reason: string };

const LETTER = /^[\p{L}\p{M}\p{N}]$/u;

export function lexPipeline(src: string): LexResult {
  const segments: string[][] = [[]];
  const spans: [number, number][] = [];
  let segStart = 0;
  let word: string | null = null;
  const endWord = () => {
    if (word !== null) segments[segments.length - 1].push(word);
    word = null;
  };
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    const next = src[i + 1];
    if (c === ' ' || c === '\t') {
      endWord();
      continue;
    }
    // A newline that only ends the command (blanks and newlines after it) is what a shell reads as one command.
    if (c === '\n' && /^[\n \t]*$/.test(src.slice(i + 1))) break;
    if (c === '\n' || c === '\r') return refuse('a newline separates several commands');
    if (c === '|') {
      if (next === '|') return refuse("'||' chains commands");
      if (next === '&') return refuse("'|&' redirects standard error into the pipe");
      endWord();
      spans.push([segStart, i]);
      segStart = i + 1;
      segments.push([]);
      continue;
    }
    if (c === '&') return refuse(next === '&' ? "'&&' chains commands" : "'&' runs a command in the background");
    if (c === ';') return refuse("';' chains commands");
    if (c === '<' || c === '>') {
      if (next === '(') return refuse('process substitution');
      return refuse('redirections are not allowed');
    }
    if (c === '(' || c === ')') return refuse('subshells are not allowed');
    if (c === '{' || c === '}') return refuse('brace groups and brace expansion are not allowed');
    if (c === '`') return refuse('backtick command substitution');
    if (c === '$') return refuse(dollarReason(next, src[i + 2]));
    if (c === '\\') return refuse('backslash escapes are not allowed; quote the argument instead');
    if (c === '#' && word === null) return refuse('comments are not allowed');
    if (c === '*' || c === '?' || c === '[' || c === ']') return refuse(`unquoted glob character '${c}'; quote it`);
    if (c === '~' && word === null) return refuse('tilde expansion is not allowed');
    if (c === '!' && word === null) return refuse("'!' negation or history expansion");
    if (c === "'") {
      const end = src.indexOf("'", i + 1);
      if (end < 0) return refuse('unterminated single quote');
      word = (word ?? '') + src.slice(i + 1, end);
      i = end;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      let text = '';
      for (; j < src.length && src[j] !== '"'; j++) {
        const d = src[j];
        if (d === '$') return refuse(`${dollarReason(src[j + 1], src[j + 2])} inside double quotes`);
        if (d === '`') return refuse('backtick command substitution inside double quotes');
        if (d === '\\') return refuse('backslash escapes are not allowed; use single quotes');
        text += d;
      }
      if (j >= src.length) return refuse('unterminated double quote');
      word = (word ?? '') + text;
      i = j;
      continue;
    }
    // Letters and digits of any script are words (中文, café); other non-ASCII may imitate an operator (｜ ； −).
    if (c.charCodeAt(0) > 0x7e && !LETTER.test(c))
      return refuse(`non-ASCII character '${c}' outside quotes (it may imitate a shell operator)`);
    word = (word ?? '') + c;
  }
  endWord();
  spans.push([segStart, src.length]);
  return { ok: true, segments, spans };
}

function dollarReason(next: string | undefined, after: string | undefined): string {
  if (next === '(') return after === '(' ? 'arithmetic expansion $((…))' : 'command substitution $(…)';
  if (next === '{') return 'parameter expansion ${…}';
  if (next === "'" || next === '"') return 'ANSI-C or locale quoting ($\'…\' / $"…")';
  return 'variable expansion ($NAME)';
}

const refuse = (reason: string): LexResult => ({ ok: false, reason });
