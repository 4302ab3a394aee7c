import type { File } from 'sh-syntax';
import { parseShell } from './shell.parser';
import type { Workspace } from '../workspace/workspace';
import { lexPipeline } from './shell-words.lexer';
import { resolveWorkspacePath } from './workspace-paths';

export type ExecSecurity = 'deny' | 'allowlist' | 'full';

export interface ExecPolicyConfig {
  security: ExecSecurity;
  /** Programs allowed on top of DEFAULT_SAFE_BINS (allowlist mode). */
  allow: readonly string[];
}

export type ExecVerdict = { allowed: true; programs: string[] } | { allowed: false; reason: string };

/** Read-only text filters: safe to chain in a pipe without asking anyone. */
export const DEFAULT_SAFE_BINS = ['jq', 'grep', 'cut', 'sort', 'uniq', 'head', 'tail', 'tr', 'wc'] as const;

const ENV_ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** Options that turn an otherwise read-only safe bin into something that writes or executes. */
function dangerousOption(program: string, args: readonly string[]): string | undefined {
  for (const a of args) {
    if (program === 'sort') {
      if (a.startsWith('--compress-program')) return `'sort ${a}' runs another program`;
      if (a.startsWith('--output') || (/^-[A-Za-z]*o/.test(a) && !a.startsWith('--'))) return `'sort -o' writes a file`;
    }
  }
  return undefined;
}

/**
 * Decides whether a shell command may run. `deny`: nothing. `full`: anything the shell can parse
 * (it still runs in the sandbox). `allowlist`: a single pipeline of allowlisted programs with
 * literal arguments; chaining, substitutions, redirections, subshells, newlines, env prefixes,
 * expansions and look-alike characters are refused with a reason.
 */
export async function evaluateCommand(command: string, policy: ExecPolicyConfig, workspace?: Workspace): Promise<ExecVerdict> {
  if (policy.security === 'deny') return refuse('shell commands are disabled (tools.exec.security: deny)');
  const text = command.trim();
  if (!text) return refuse('empty command');
  let ast: File;
  try {
    ast = await parseShell(text);
  } catch (e) {
    return refuse(`not valid shell syntax: ${(e as Error).message.split('\n')[0]}`);
  }
  if (policy.security === 'full') return { allowed: true, programs: [] };

  const lexed = lexPipeline(text);
  if (!lexed.ok) return refuse(lexed.reason);
  // The parser must agree with the lexer: one statement, no redirection, not backgrounded/negated.
  if (ast.Stmts.length !== 1) return refuse('several commands');
  const stmt = ast.Stmts[0];
  if (stmt.Redirs.length || stmt.Background || stmt.Negated || stmt.Coprocess) return refuse('redirection, background or negation');

  const allowed = new Set<string>([...DEFAULT_SAFE_BINS, ...policy.allow]);
  const programs: string[] = [];
  for (const [n, words] of lexed.segments.entries()) {
    if (words.length === 0) return refuse('empty pipeline segment');
    const [program, ...args] = words;
    if (ENV_ASSIGNMENT.test(program)) return refuse(`environment assignment prefix '${program.split('=')[0]}=…'`);
    if (program.includes('/')) return refuse(`programs are named, not given by path ('${program}')`);
    if (!allowed.has(program)) return refuse(`'${program}' is not on the allowlist`);
    const danger = dangerousOption(program, args);
    if (danger) return refuse(danger);
    const outside = workspace && pathOutside(workspace, args);
    if (outside) return refuse(outside);
    const [from, to] = lexed.spans[n];
    const seg = await parseShell(text.slice(from, to));
    if (seg.Stmts.length !== 1 || seg.Stmts[0].Redirs.length) return refuse('the shell parser reads this segment differently');
    programs.push(program);
  }
  return { allowed: true, programs };
}

/**
 * Path-like arguments (containing '/', also after `--opt=`) must stay in the workspace: the sandbox
 * would hide the rest anyway, but the restricted native executor has no such boundary.
 */
function pathOutside(ws: Workspace, args: readonly string[]): string | undefined {
  for (const arg of args) {
    const value = arg.startsWith('-') ? arg.slice(arg.indexOf('=') + 1 || arg.length) : arg;
    if (!value.includes('/') && value !== '..') continue;
    try {
      resolveWorkspacePath(ws, value);
    } catch (e) {
      return `argument ${(e as Error).message}`;
    }
  }
  return undefined;
}

const refuse = (reason: string): ExecVerdict => ({ allowed: false, reason });
