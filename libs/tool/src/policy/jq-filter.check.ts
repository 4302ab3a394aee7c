/**
 * jq filters are code. They cannot execute programs or write files, but a few builtins and
 * directives read files or reveal host paths: `import`/`include` (modules and data files, by a path
 * that may be built from `\u002f` escapes the path check never sees), `input_filename`,
 * `$__loc__`, `modulemeta`, `get_search_list` and the origin builtins. Those are refused wherever
 * they appear as code (string contents are data, but `\(…)` interpolations are code again).
 */
const READS_OR_REVEALS = new Set([
  'import',
  'include',
  'input_filename',
  'modulemeta',
  'get_search_list',
  'get_prog_origin',
  'get_jq_origin',
  '$__loc__',
  '$__prog_args',
]);

const IDENT = /[A-Za-z_$][A-Za-z0-9_]*/y;

export function checkJqFilter(filter: string): string | undefined {
  let i = 0;
  /** Depth of `\(` interpolations we are inside, each with its own parenthesis depth. */
  const interpolations: number[] = [];
  let inString = false;
  while (i < filter.length) {
    const c = filter[i];
    if (inString) {
      if (c === '\\' && filter[i + 1] === '(') {
        interpolations.push(0);
        inString = false;
        i += 2;
      } else if (c === '\\') i += 2;
      else if (c === '"') {
        inString = false;
        i++;
      } else i++;
      continue;
    }
    if (c === '"') {
      inString = true;
      i++;
      continue;
    }
    if (c === '#') return 'jq comments are not allowed';
    if (interpolations.length) {
      const top = interpolations.length - 1;
      if (c === '(') interpolations[top]++;
      else if (c === ')') {
        if (interpolations[top] === 0) {
          interpolations.pop();
          inString = true;
          i++;
          continue;
        }
        interpolations[top]--;
      }
    }
    if (c === ':' && filter[i + 1] === ':') return "jq module calls ('::') are not allowed";
    IDENT.lastIndex = i;
    const m = IDENT.exec(filter);
    if (m) {
      const word = m[0];
      // `.import` is a field name, not the directive.
      const isField = filter[i - 1] === '.' && !word.startsWith('$');
      if (!isField && READS_OR_REVEALS.has(word)) return `jq '${word}' reads files or reveals host paths`;
      i += word.length;
      continue;
    }
    i++;
  }
  return undefined;
}
