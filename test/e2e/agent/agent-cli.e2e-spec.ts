import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** `nestclaw agent files` and `nestclaw skills list` from the built CLI (`npm test` builds first). */
const ROOT = join(__dirname, '..', '..', '..');
const BIN = join(ROOT, 'bin', 'nestclaw.js');

function run(args: string[], home: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, NESTCLAW_HOME: home },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('nestclaw agent files / skills list', () => {
  let home: string;
  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), 'nestclaw-cli-ctx-'));
    writeFileSync(join(home, 'config.yaml'), 'agents:\n  default:\n    bootstrap:\n      max_file_chars: 500\n');
  });
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it('creates the workspace files and shows each one, what was cut, and the prompt tokens of "hello"', async () => {
    const first = await run(['agent', 'files', '--json'], home);
    expect(first.code).toBe(0);
    const report = JSON.parse(first.stdout) as { files: { name: string; chars: number }[]; helloTokens: number };
    expect(report.files.map((f) => f.name)).toEqual(['AGENTS.md', 'SOUL.md', 'USER.md', 'IDENTITY.md', 'TOOLS.md']);
    expect(report.files.every((f) => f.chars > 0)).toBe(true);
    expect(report.helloTokens).toBeGreaterThan(100);
    expect(report.helloTokens).toBeLessThanOrEqual(2000);

    writeFileSync(join(home, 'workspaces', 'agents', 'default', 'SOUL.md'), 'x'.repeat(2000));
    const text = await run(['agent', 'files'], home);
    expect(text.code).toBe(0);
    const soul = /SOUL\.md\s+2000\s+(\d+)\s+\d+\s+cut (\d+) chars/.exec(text.stdout);
    expect(soul).not.toBeNull();
    expect(Number(soul![1])).toBeLessThanOrEqual(500);
    expect(Number(soul![2])).toBeGreaterThanOrEqual(1500);
    expect(text.stdout).toMatch(/a "hello" request costs \d+ prompt tokens/);
  });

  it('lists skills with their source, a workspace skill over a global one, and why one is unavailable', async () => {
    const skill = (dir: string, name: string, desc: string, extra = '') => {
      mkdirSync(join(dir, name), { recursive: true });
      writeFileSync(join(dir, name, 'SKILL.md'), `---\nname: ${name}\ndescription: ${desc}\n${extra}---\nbody\n`);
    };
    skill(join(home, 'skills'), 'notes', 'global notes');
    skill(join(home, 'workspaces', 'agents', 'default', 'skills'), 'notes', 'workspace notes');
    skill(join(home, 'skills'), 'ocr', 'Read text from images', 'requires:\n  bins: [no-such-ocr-binary]\n  env: [NO_SUCH_OCR_KEY]\n');
    const r = await run(['skills', 'list'], home);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/notes\s+workspace\s+available/);
    expect(r.stdout).toContain('workspace notes');
    expect(r.stdout).not.toContain('global notes');
    expect(r.stdout).toMatch(/ocr\s+global\s+unavailable: missing binary no-such-ocr-binary; missing environment variable NO_SUCH_OCR_KEY/);
    expect(r.stdout).toMatch(/web-research\s+builtin\s+available/);
  });

  it('names the configured agents when asked about an unknown one', async () => {
    const r = await run(['agent', 'files', '--agent', 'nope'], home);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('unknown agent "nope"; configured agents: default');
  });
});
