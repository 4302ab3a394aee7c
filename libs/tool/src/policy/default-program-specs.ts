import { checkJqFilter } from './jq-filter.check';
import type { OptionSpec, ProgramSpec } from './program-spec';

/**
 * The default allowlist: read-only text filters, each with every option its GNU (coreutils 9.1,
 * grep 3.8) or jq 1.6 version knows. Long options are listed in full, refused ones included, so
 * that abbreviations resolve exactly as getopt_long resolves them (`sort --co` is
 * `--compress-program`, which is refused by name).
 */
const RUNS = 'runs another program';
const WRITES = 'writes a file';
const NAMES_FROM = 'reads file names from another file or stdin';

const o = (short: string | undefined, long?: string, extra: Omit<OptionSpec, 'short' | 'long'> = {}): OptionSpec => ({
  ...(short ? { short } : {}),
  ...(long ? { long } : {}),
  ...extra,
});
const text = { value: 'text' } as const;
const path = { value: 'path' } as const;
const info = [o(undefined, 'help'), o(undefined, 'version')];

const grep: ProgramSpec = {
  name: 'grep',
  style: 'gnu',
  operands: 'text-then-inputs',
  digitOptions: true,
  options: [
    ...info,
    o('E', 'extended-regexp'),
    o('F', 'fixed-strings'),
    o('G', 'basic-regexp'),
    o('P', 'perl-regexp'),
    o('e', 'regexp', { ...text, givesPattern: true }),
    o('f', 'file', { ...path, givesPattern: true }),
    o('i', 'ignore-case'),
    o('y'),
    o(undefined, 'no-ignore-case'),
    o('w', 'word-regexp'),
    o('x', 'line-regexp'),
    o('z', 'null-data'),
    o('s', 'no-messages'),
    o('v', 'invert-match'),
    o('V'),
    o('m', 'max-count', text),
    o('b', 'byte-offset'),
    o('n', 'line-number'),
    o(undefined, 'line-buffered'),
    o('H', 'with-filename'),
    o('h', 'no-filename'),
    o(undefined, 'label', text),
    o('o', 'only-matching'),
    o('q', 'quiet'),
    o(undefined, 'silent'),
    o(undefined, 'binary-files', text),
    o('a', 'text'),
    o('I'),
    o('d', 'directories', text),
    o('D', 'devices', { refuse: 'reads devices, FIFOs and sockets' }),
    o('r', 'recursive'),
    o('R', 'dereference-recursive', { refuse: 'follows symbolic links out of the workspace' }),
    o(undefined, 'include', text),
    o(undefined, 'exclude', text),
    o(undefined, 'exclude-from', path),
    o(undefined, 'exclude-dir', text),
    o('L', 'files-without-match'),
    o('l', 'files-with-matches'),
    o('c', 'count'),
    o('T', 'initial-tab'),
    o('Z', 'null'),
    o('B', 'before-context', text),
    o('A', 'after-context', text),
    o('C', 'context', text),
    o(undefined, 'group-separator', text),
    o(undefined, 'no-group-separator'),
    o(undefined, 'color', { optionalValue: 'text' }),
    o(undefined, 'colour', { optionalValue: 'text' }),
    o('U', 'binary'),
  ],
};

const sort: ProgramSpec = {
  name: 'sort',
  style: 'gnu',
  operands: 'inputs',
  options: [
    ...info,
    o('b', 'ignore-leading-blanks'),
    o('d', 'dictionary-order'),
    o('f', 'ignore-case'),
    o('g', 'general-numeric-sort'),
    o('i', 'ignore-nonprinting'),
    o('M', 'month-sort'),
    o('h', 'human-numeric-sort'),
    o('n', 'numeric-sort'),
    o('R', 'random-sort'),
    o(undefined, 'random-source', { refuse: 'reads a file named outside the operands' }),
    o('r', 'reverse'),
    o('V', 'version-sort'),
    o(undefined, 'sort', text),
    o(undefined, 'batch-size', text),
    o('c', 'check', { optionalValue: 'text' }),
    o('C'),
    o(undefined, 'compress-program', { refuse: RUNS }),
    o(undefined, 'debug'),
    o(undefined, 'files0-from', { refuse: NAMES_FROM }),
    o('k', 'key', text),
    o('m', 'merge'),
    o('o', 'output', { refuse: WRITES }),
    o('s', 'stable'),
    o('S', 'buffer-size', text),
    o('t', 'field-separator', text),
    // Its temporary files go where it is told: a directory inside the workspace is as good as the workspace.
    o('T', 'temporary-directory', path),
    o(undefined, 'parallel', text),
    o('u', 'unique'),
    o('z', 'zero-terminated'),
  ],
};

const uniq: ProgramSpec = {
  name: 'uniq',
  style: 'gnu',
  operands: 'inputs',
  maxOperands: 1,
  operandsReason: "uniq's second operand is an output file it would write",
  options: [
    ...info,
    o('c', 'count'),
    o('d', 'repeated'),
    o('D'),
    o(undefined, 'all-repeated', { optionalValue: 'text' }),
    o('f', 'skip-fields', text),
    o(undefined, 'group', { optionalValue: 'text' }),
    o('i', 'ignore-case'),
    o('s', 'skip-chars', text),
    o('u', 'unique'),
    o('z', 'zero-terminated'),
    o('w', 'check-chars', text),
  ],
};

const cut: ProgramSpec = {
  name: 'cut',
  style: 'gnu',
  operands: 'inputs',
  options: [
    ...info,
    o('b', 'bytes', text),
    o('c', 'characters', text),
    o('d', 'delimiter', text),
    o('f', 'fields', text),
    o('n'),
    o(undefined, 'complement'),
    o('s', 'only-delimited'),
    o(undefined, 'output-delimiter', text),
    o('z', 'zero-terminated'),
  ],
};

const head: ProgramSpec = {
  name: 'head',
  style: 'gnu',
  operands: 'inputs',
  digitOptions: true,
  options: [
    ...info,
    o('c', 'bytes', text),
    o('n', 'lines', text),
    o('q', 'quiet'),
    o(undefined, 'silent'),
    o('v', 'verbose'),
    o('z', 'zero-terminated'),
  ],
};

const FOLLOWS = 'keeps running after the file ends';
const tail: ProgramSpec = {
  name: 'tail',
  style: 'gnu',
  operands: 'inputs',
  digitOptions: true,
  options: [
    ...info,
    o('c', 'bytes', text),
    o('f', 'follow', { refuse: FOLLOWS }),
    o('F', undefined, { refuse: FOLLOWS }),
    o('n', 'lines', text),
    o(undefined, 'max-unchanged-stats', { refuse: FOLLOWS }),
    o(undefined, 'pid', { refuse: FOLLOWS }),
    o('q', 'quiet'),
    o(undefined, 'retry', { refuse: FOLLOWS }),
    o(undefined, 'silent'),
    o('s', 'sleep-interval', { refuse: FOLLOWS }),
    o('v', 'verbose'),
    o('z', 'zero-terminated'),
  ],
};

const tr: ProgramSpec = {
  name: 'tr',
  style: 'gnu',
  operands: 'text',
  maxOperands: 2,
  options: [...info, o('c', 'complement'), o('C'), o('d', 'delete'), o('s', 'squeeze-repeats'), o('t', 'truncate-set1')],
};

const wc: ProgramSpec = {
  name: 'wc',
  style: 'gnu',
  operands: 'inputs',
  options: [
    ...info,
    o('c', 'bytes'),
    o('m', 'chars'),
    o('l', 'lines'),
    o(undefined, 'files0-from', { refuse: NAMES_FROM }),
    o('L', 'max-line-length'),
    o('w', 'words'),
  ],
};

const jq: ProgramSpec = {
  name: 'jq',
  style: 'jq',
  operands: 'text-then-inputs',
  checkText: checkJqFilter,
  options: [
    o('h', 'help'),
    o('V', 'version'),
    o(undefined, 'seq'),
    o(undefined, 'stream'),
    o('s', 'slurp'),
    o('r', 'raw-output'),
    o('j', 'join-output'),
    o('a', 'ascii-output'),
    o('c', 'compact-output'),
    o('C', 'color-output'),
    o('M', 'monochrome-output'),
    o('S', 'sort-keys'),
    o('R', 'raw-input'),
    o('n', 'null-input'),
    o('e', 'exit-status'),
    o(undefined, 'tab'),
    o(undefined, 'indent', text),
    o(undefined, 'unbuffered'),
    o(undefined, 'arg', { ...text, arity: 2 }),
    o(undefined, 'argjson', { ...text, arity: 2 }),
    o(undefined, 'args', { operandsBecomeText: true }),
    o(undefined, 'jsonargs', { operandsBecomeText: true }),
    o('f', 'from-file', { refuse: 'reads the filter from a file' }),
    o('L', undefined, { refuse: 'loads modules from a directory' }),
    o(undefined, 'slurpfile', { refuse: 'reads a file named outside the operands' }),
    o(undefined, 'rawfile', { refuse: 'reads a file named outside the operands' }),
    o(undefined, 'argfile', { refuse: 'reads a file named outside the operands' }),
    o(undefined, 'run-tests', { refuse: 'reads test files' }),
    o(undefined, 'debug-dump-disasm'),
    o(undefined, 'debug-trace'),
  ],
};

export const DEFAULT_PROGRAM_SPECS: readonly ProgramSpec[] = [jq, grep, cut, sort, uniq, head, tail, tr, wc];
