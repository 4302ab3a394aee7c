/**
 * What a program accepts, written down the way the program itself parses its arguments. The exec
 * policy refuses anything that is not in the spec, so an allowlisted program cannot be talked into
 * executing, writing, or reading file names from somewhere the check does not see.
 */

/** `path` values (and operands) must stay inside the workspace; `text` values are data. */
export type ValueKind = 'text' | 'path';

export interface OptionSpec {
  /** One character, without the dash. */
  short?: string;
  /** Without the leading dashes. */
  long?: string;
  /** The option takes a value: attached (`-k2`, `--key=2`) or the next argument. */
  value?: ValueKind;
  /** The value may only be attached (`--color=auto`); `--color` alone is fine. */
  optionalValue?: ValueKind;
  /** Extra following arguments the option consumes (jq's `--arg NAME VALUE` takes 2). */
  arity?: number;
  /** A real option of the program that is refused, with the reason shown to the model. */
  refuse?: string;
  /** grep `-e`: the pattern is given, so the first operand is an input, not the pattern. */
  givesPattern?: boolean;
  /** jq `--args`: operands after the filter are string arguments, not files. */
  operandsBecomeText?: boolean;
}

export interface ProgramSpec {
  name: string;
  options: readonly OptionSpec[];
  /**
   * How operands are read: all input files, all text, or the first one text (a pattern or a jq
   * filter) and the rest input files.
   */
  operands: 'inputs' | 'text' | 'text-then-inputs';
  /** More operands than this are refused with `operandsReason` (uniq's second operand is its output). */
  maxOperands?: number;
  operandsReason?: string;
  /**
   * `gnu`: getopt_long (unambiguous prefixes of long options, clustered shorts, `--`, options after
   * operands). `jq`: jq's own parser (exact long names, clustered shorts, `-5` is an operand).
   */
  style: 'gnu' | 'jq';
  /** `-NUM` is an option (head/tail line counts, grep context). */
  digitOptions?: boolean;
  /** Extra check of the text operand (jq filter). */
  checkText?: (text: string) => string | undefined;
}

export interface ParsedArgs {
  /** Values and operands that name files the program will read. */
  paths: string[];
  operands: string[];
}

export type ParseResult = { ok: true; args: ParsedArgs } | { ok: false; reason: string };

const fail = (reason: string): ParseResult => ({ ok: false, reason });

/**
 * Resolves a long option the way getopt_long does: an exact name wins; otherwise a unique prefix
 * over every option the program knows (allowed or refused) is that option; several are ambiguous.
 */
function findLong(spec: ProgramSpec, name: string): OptionSpec | 'ambiguous' | undefined {
  const all = spec.options.filter((o) => o.long);
  const exact = all.find((o) => o.long === name);
  if (exact || spec.style === 'jq') return exact;
  const matches = all.filter((o) => o.long!.startsWith(name));
  if (matches.length > 1) return 'ambiguous';
  return matches[0];
}

const display = (o: OptionSpec) => (o.long ? `--${o.long}` : `-${o.short}`);

/** Parses a program's arguments by its spec; refuses unknown and refused options by name. */
export function parseArguments(spec: ProgramSpec, args: readonly string[]): ParseResult {
  const paths: string[] = [];
  const operands: string[] = [];
  /** jq reads its arguments in order: operands after `--args` are text. */
  const textAfterFlag: boolean[] = [];
  let operandsAreText = false;
  let patternGiven = false;
  let endOfOptions = false;

  const isOption = (a: string) =>
    spec.style === 'jq' ? a[0] === '-' && (a[1] === '-' || /[A-Za-z]/.test(a[1] ?? '')) : a[0] === '-' && a.length > 1;

  const takeValue = (o: OptionSpec, kind: ValueKind, value: string): void => {
    if (kind === 'path') paths.push(value);
    if (o.givesPattern) patternGiven = true;
  };

  const apply = (o: OptionSpec, written: string): string | undefined => {
    if (o.refuse) return `'${spec.name} ${display(o)}'${written !== display(o) ? ` (written '${written}')` : ''} ${o.refuse}`;
    if (o.operandsBecomeText) operandsAreText = true;
    return undefined;
  };

  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (endOfOptions || !isOption(a)) {
      operands.push(a);
      textAfterFlag.push(operandsAreText);
      continue;
    }
    if (a === '--') {
      endOfOptions = true;
      continue;
    }
    if (a.startsWith('--')) {
      const eq = spec.style === 'gnu' ? a.indexOf('=') : -1;
      const name = eq >= 0 ? a.slice(2, eq) : a.slice(2);
      const o = findLong(spec, name);
      if (o === 'ambiguous') return fail(`'${spec.name} --${name}' is ambiguous; write the option out in full`);
      if (!o) return fail(`'${spec.name} --${name}' is not an option this policy knows for ${spec.name}`);
      const refused = apply(o, eq >= 0 ? a.slice(0, eq) : a);
      if (refused) return fail(refused);
      if (o.value) {
        let value: string | undefined = eq >= 0 ? a.slice(eq + 1) : args[++i];
        if (value === undefined) return fail(`'${spec.name} --${o.long}' needs a value`);
        takeValue(o, o.value, value);
        for (let k = 1; k < (o.arity ?? 1); k++) {
          value = args[++i];
          if (value === undefined) return fail(`'${spec.name} --${o.long}' needs ${o.arity} values`);
        }
      } else if (o.optionalValue) {
        if (eq >= 0) takeValue(o, o.optionalValue, a.slice(eq + 1));
      } else if (eq >= 0) {
        return fail(`'${spec.name} --${o.long}' takes no value`);
      }
      continue;
    }
    // A cluster of short options: `-rn`, `-k2,2`, `-t,`, `-n5`.
    if (spec.digitOptions && /^-\d+$/.test(a)) continue;
    for (let j = 1; j < a.length; j++) {
      const c = a[j];
      if (spec.digitOptions && c >= '0' && c <= '9') continue;
      const o = spec.options.find((x) => x.short === c);
      if (!o) return fail(`'${spec.name} -${c}'${a.length > 2 ? ` (in '${a}')` : ''} is not an option this policy knows for ${spec.name}`);
      const refused = apply(o, a.length > 2 ? a : `-${c}`);
      if (refused) return fail(refused);
      if (o.value) {
        const attached = a.slice(j + 1);
        const value = attached || args[++i];
        if (value === undefined) return fail(`'${spec.name} -${c}' needs a value`);
        takeValue(o, o.value, value);
        break;
      }
    }
  }

  const kinds = operands.map((_, n) =>
    spec.operands === 'text' || (n > 0 && textAfterFlag[n])
      ? 'text'
      : spec.operands === 'inputs' || (n === 0 && patternGiven)
        ? 'path'
        : n === 0
          ? 'text'
          : 'path',
  );
  if (spec.maxOperands !== undefined && operands.length > spec.maxOperands)
    return fail(spec.operandsReason ?? `'${spec.name}' takes at most ${spec.maxOperands} operand(s)`);
  for (const [n, op] of operands.entries()) {
    if (kinds[n] === 'path') paths.push(op);
    else if (spec.checkText && n === 0) {
      const bad = spec.checkText(op);
      if (bad) return fail(bad);
    }
  }
  return { ok: true, args: { paths: paths.filter((p) => p !== '-'), operands } };
}
