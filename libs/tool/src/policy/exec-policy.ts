import type { File } from 'sh-syntax';
import type { ToolsConfig } from '@nestclaw/config';
import { parseShell } from './shell.parser';
import type { Workspace } from '../workspace/workspace';
import { DEFAULT_PROGRAM_SPECS } from './default-program-specs';
import { oddCharacter } from './odd-characters';
import { parseArguments, ProgramSpec } from './program-spec';
import { lexPipeline } from './shell-words.lexer';
import { resolveWorkspacePath } from './workspace-paths';

export type ExecSecurity = 'deny' | 'allowlist' | 'full';

export type OwnerProgramSpec = ToolsConfig['exec']['programs'][string];

export interface ExecPolicyConfig {
  security: ExecSecurity;
  /** Programs without a spec (allowlist mode): they run, but only with approval. */
  allow: readonly string[];
  /** Programs the owner specified in config, checked like the defaults. */
  programs?: Readonly<Record<string, OwnerProgramSpec>>;
}

export type ExecVerdict =
  | {
      allowed: true;
      programs: string[];
      /** Programs that ran without a spec: the call needs approval and the prompt says so. */
      unspecified: string[];
    }
  | { allowed: false; reason: string };

/** Read-only text filters: safe to chain in a pipe without asking anyone. */
export const DEFAULT_SAFE_BINS = DEFAULT_PROGRAM_SPECS.map((s) => s.name);

/** Bounds that keep the check cheap whatever the model sends (it runs before any approval). */
export const MAX_COMMAND_CHARS = 8192;
export const MAX_PIPELINE_SEGMENTS = 16;
export const MAX_WORDS = 512;

const ENV_ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** An owner's config spec in the policy's own terms (GNU-style parsing). */
export function ownerSpec(name: string, s: OwnerProgramSpec): ProgramSpec {
  return {
    name,
    style: 'gnu',
    operands: s.operands,
    maxOperands: s.max_operands,
    options: [
      ...s.options.map((o) => ({
        ...(o.short ? { short: o.short } : {}),
        ...(o.long ? { long: o.long } : {}),
        ...(o.value === 'none' ? {} : { value: o.value }),
      })),
    ],
  };
}

/**
 * Decides whether a shell command may run. `deny`: nothing. `full`: anything the shell can parse
 * (it still runs in the sandbox). `allowlist`: a single pipeline of programs with literal
 * arguments, each parsed against its spec; chaining, substitutions, redirections, subshells,
 * newlines, env prefixes, expansions, look-alike and invisible characters are refused with a reason.
 * The command is checked exactly as the shell will receive it: nothing is trimmed.
 */
export async function evaluateCommand(command: string, policy: ExecPolicyConfig, workspace?: Workspace): Promise<ExecVerdict> {
  if (policy.security === 'deny') return refuse('shell commands are disabled (tools.exec.security: deny)');
  if (command.length > MAX_COMMAND_CHARS) return refuse(`the command is longer than ${MAX_COMMAND_CHARS} characters`);
  const odd = oddCharacter(command);
  if (odd) return refuse(odd);
  if (!/[^ \t]/.test(command)) return refuse('empty command');

  if (policy.security === 'full') {
    const parsed = await tryParse(command);
    return typeof parsed === 'string' ? refuse(parsed) : { allowed: true, programs: [], unspecified: [] };
  }

  const lexed = lexPipeline(command);
  if (!lexed.ok) return refuse(lexed.reason);
  if (lexed.segments.length > MAX_PIPELINE_SEGMENTS) return refuse(`more than ${MAX_PIPELINE_SEGMENTS} commands in one pipeline`);
  if (lexed.segments.reduce((n, s) => n + s.length, 0) > MAX_WORDS) return refuse(`more than ${MAX_WORDS} words`);
  const ast = await tryParse(command);
  if (typeof ast === 'string') return refuse(ast);
  // The parser must agree with the lexer: one statement, no redirection, not backgrounded/negated.
  if (ast.Stmts.length !== 1) return refuse('several commands');
  const stmt = ast.Stmts[0];
  if (stmt.Redirs.length || stmt.Background || stmt.Negated || stmt.Coprocess) return refuse('redirection, background or negation');

  const specs = new Map<string, ProgramSpec>(DEFAULT_PROGRAM_SPECS.map((s) => [s.name, s]));
  for (const [name, s] of Object.entries(policy.programs ?? {})) specs.set(name, ownerSpec(name, s));
  const unspecifiedAllowed = new Set(policy.allow);
  const programs: string[] = [];
  const unspecified: string[] = [];
  for (const [n, words] of lexed.segments.entries()) {
    if (words.length === 0) return refuse('empty pipeline segment');
    const [program, ...args] = words;
    if (ENV_ASSIGNMENT.test(program)) return refuse(`environment assignment prefix '${program.split('=')[0]}=…'`);
    if (program.includes('/')) return refuse(`programs are named, not given by path ('${program}')`);
    const spec = specs.get(program);
    if (spec) {
      const parsed = parseArguments(spec, args);
      if (!parsed.ok) return refuse(parsed.reason);
      const outside = workspace ? pathOutside(workspace, parsed.args.paths) : undefined;
      if (outside) return refuse(outside);
    } else if (unspecifiedAllowed.has(program)) {
      if (!unspecified.includes(program)) unspecified.push(program);
    } else return refuse(`'${program}' is not on the allowlist`);
    const [from, to] = lexed.spans[n];
    const seg = await tryParse(command.slice(from, to));
    if (typeof seg === 'string' || seg.Stmts.length !== 1 || seg.Stmts[0].Redirs.length)
      return refuse('the shell parser reads this segment differently');
    programs.push(program);
  }
  return { allowed: true, programs, unspecified };
}

async function tryParse(text: string): Promise<File | string> {
  try {
    return await parseShell(text);
  } catch (e) {
    return `not valid shell syntax: ${(e as Error).message.split('\n')[0]}`;
  }
}

/** File names a program will read must resolve inside the workspace (symlinks included). */
function pathOutside(ws: Workspace, paths: readonly string[]): string | undefined {
  for (const p of paths) {
    try {
      resolveWorkspacePath(ws, p);
    } catch (e) {
      return `argument ${(e as Error).message}`;
    }
  }
  return undefined;
}

const refuse = (reason: string): ExecVerdict => ({ allowed: false, reason });
