import { accessSync, appendFileSync, constants, existsSync, readFileSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';

/**
 * Host programs some tests need and a plain machine may lack. A test that needs one that is absent
 * skips visibly (the tool and the command that installs it are printed, and listed again at the end
 * of the run); under CI=true the same test fails naming the tool instead, so CI tests everything.
 */
export type HostToolName =
  'bubblewrap' | 'prometheus' | 'promtool' | 'docker' | 'tmux' | 'chromium' | 'haproxy' | 'claude-code' | 'gemini-cli';

interface HostToolSpec {
  /** Program names looked up on PATH, then in /usr/bin and /usr/sbin (haproxy lives there, off a non-root PATH). */
  binaries: string[];
  /** Folders looked in after those (a tool installed for the tests only, not for users). */
  dirs?: string[];
  install: string;
}

/**
 * Where `.ci/run` installs Claude Code for the CLI-bridge tests (~400 MB of native binary: a test
 * tool, not a dependency every user downloads).
 */
export const CLAUDE_CODE_PREFIX = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'nestclaw-tests', 'claude-code');
export const CLAUDE_CODE_VERSION = '2.1.332';

/** Where `.ci/run` installs Gemini CLI (its hooks and its framed permission dialog are tested against the real one). */
export const GEMINI_CLI_PREFIX = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'nestclaw-tests', 'gemini-cli');
export const GEMINI_CLI_VERSION = '0.61.0';

const HOST_TOOLS: Record<HostToolName, HostToolSpec> = {
  bubblewrap: { binaries: ['bwrap'], install: 'apt-get install bubblewrap' },
  prometheus: { binaries: ['prometheus'], install: 'apt-get install prometheus' },
  promtool: { binaries: ['promtool'], install: 'apt-get install prometheus' },
  docker: { binaries: ['docker'], install: 'apt-get install docker.io and start dockerd' },
  tmux: { binaries: ['tmux'], install: 'apt-get install tmux' },
  chromium: { binaries: ['chromium', 'chromium-browser', 'google-chrome'], install: 'apt-get install chromium' },
  haproxy: { binaries: ['haproxy'], install: 'apt-get install haproxy' },
  'claude-code': {
    binaries: ['claude'],
    dirs: [join(CLAUDE_CODE_PREFIX, 'node_modules', '.bin')],
    install: `npm install --prefix ${CLAUDE_CODE_PREFIX} @anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}`,
  },
  'gemini-cli': {
    binaries: ['gemini'],
    dirs: [join(GEMINI_CLI_PREFIX, 'node_modules', '.bin')],
    install: `npm install --prefix ${GEMINI_CLI_PREFIX} @google/gemini-cli@${GEMINI_CLI_VERSION}`,
  },
};

/** Where global setup asks workers to note their skips, so global teardown can list them once at the end. */
export const SKIP_LOG_ENV = 'NESTCLAW_TEST_HOST_TOOL_SKIPS';

export const inCi = () => process.env.CI === 'true';

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The absolute path of the tool's program, or undefined when this machine does not have it. */
export function findHostTool(name: HostToolName): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter).filter(Boolean), '/usr/bin', '/usr/sbin', ...(HOST_TOOLS[name].dirs ?? [])];
  for (const binary of HOST_TOOLS[name].binaries) for (const dir of dirs) if (executable(join(dir, binary))) return join(dir, binary);
  return undefined;
}

export function installHint(name: HostToolName): string {
  return HOST_TOOLS[name].install;
}

/** The tools' paths, for specs that hand them to the code under test (e.g. `tools.bubblewrap.path`). */
export type HostToolPaths = Partial<Record<HostToolName, string>>;

/** What is missing of `tools`, as "bwrap (apt-get install bubblewrap)" phrases. */
export function missingHostTools(tools: HostToolName[]): string[] {
  return tools.filter((t) => !findHostTool(t)).map((t) => `${HOST_TOOLS[t].binaries[0]} (${HOST_TOOLS[t].install})`);
}

/** Prints (and logs for the end-of-run list) a suite skipped for want of something on this machine. */
export function reportSkip(title: string, missing: string[]): void {
  const line = `SKIPPED "${title}": needs ${missing.join(', ')}`;
  process.stdout.write(`\n[nestclaw tests] ${line}\n`);
  const log = process.env[SKIP_LOG_ENV];
  if (log) appendFileSync(log, `${line}\n`);
}

/**
 * `describe(title, body)` when every tool is here; otherwise a skipped describe (reported, see above),
 * or under CI=true one failing test per missing tool. `body` gets the tools' absolute paths.
 */
export function describeWithHostTools(tools: HostToolName[], title: string, body: (paths: HostToolPaths) => void): void {
  const paths = Object.fromEntries(tools.map((t) => [t, findHostTool(t)])) as HostToolPaths;
  const missing = missingHostTools(tools);
  if (!missing.length) return describe(title, () => body(paths));
  if (inCi()) {
    return describe(title, () => {
      for (const m of missing)
        it(`has ${m}: CI=true runs every test, so a missing host tool fails the run`, () => {
          throw new Error(`host tool missing under CI=true: ${m}`);
        });
    });
  }
  reportSkip(title, missing);
  describe.skip(`${title} [skipped: needs ${missing.join(', ')}]`, () => body(paths));
}

/** Global teardown: the run's skips, once, after the summary scrolled by. */
export function printSkipSummary(): void {
  const log = process.env[SKIP_LOG_ENV];
  if (!log || !existsSync(log)) return;
  const lines = [...new Set(readFileSync(log, 'utf8').split('\n').filter(Boolean))];
  rmSync(log, { force: true });
  if (!lines.length) return;
  process.stdout.write(
    `\n[nestclaw tests] ${lines.length} suite(s) skipped because a host tool is missing (CI=true fails instead):\n${lines.map((l) => `  ${l}`).join('\n')}\n`,
  );
}
