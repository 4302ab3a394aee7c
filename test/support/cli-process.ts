import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { packageRoot } from '@nestclaw/common';

/** The `nestclaw` command as users run it: the built bundles behind bin/nestclaw.js. */
export const CLI_BIN = join(packageRoot(), 'bin', 'nestclaw.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `nestclaw <args>` to its end with `input` piped to stdin (empty by default). */
export function runCli(args: string[], env: NodeJS.ProcessEnv, input?: string, timeoutMs = 30_000): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_BIN, ...args], { cwd: packageRoot(), env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`nestclaw ${args.join(' ')} did not exit within ${timeoutMs / 1000} s\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(input ?? '');
  });
}

/** Resolves once the text `read` returns matches `pattern`, with the match. */
export function waitForOutput(read: () => string, pattern: RegExp, what: string, timeoutMs = 15_000): Promise<RegExpMatchArray> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const poll = setInterval(() => {
      const m = pattern.exec(read());
      if (m) {
        clearInterval(poll);
        resolve(m);
      } else if (Date.now() - started > timeoutMs) {
        clearInterval(poll);
        reject(new Error(`timed out waiting for ${what}; output so far:\n${read()}`));
      }
    }, 20);
  });
}

/** SIGTERM, then SIGKILL after 5 s; resolves once the process has exited. */
export function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
