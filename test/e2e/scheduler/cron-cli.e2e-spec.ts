import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, seedEmbeddedHome, TestDatabase } from '../../support/test-database';

/** `nestclaw cron` from the built CLI against the test database (`npm test` builds first). */
const ROOT = join(__dirname, '..', '..', '..');

function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'nestclaw.js'), ...args], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('nestclaw cron', () => {
  let db: TestDatabase;
  let home: string;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    db = await createTestDatabase();
    home = mkdtempSync(join(tmpdir(), 'nestclaw-cron-cli-'));
    // Embedded run: a copy of the migrated template, so the first command does not pay initdb.
    seedEmbeddedHome(home);
    env = { PATH: process.env.PATH, NESTCLAW_HOME: home, ...(db.url ? { DATABASE_URL: db.url } : {}) };
  });
  afterAll(async () => {
    await db.drop();
    rmSync(home, { recursive: true, force: true });
  });

  it('adds, lists, makes due and removes a job', async () => {
    const add = await run(['cron', 'add', '--cron', '0 9 * * 1', '--tz', 'Asia/Shanghai', '-m', 'weekly inbox summary'], env);
    expect(add.stderr).toBe('');
    expect(add.code).toBe(0);
    const id = /added ([0-9a-f-]{36}), first run (\S+)/.exec(add.stdout);
    expect(id).not.toBeNull();
    // Monday 09:00 in Shanghai is 01:00 UTC.
    expect(id![2]).toMatch(/T01:00:00\.000Z$/);
    const list = await run(['cron', 'list', '--json'], env);
    const { jobs } = JSON.parse(list.stdout) as { jobs: { id: string; schedule: unknown; message: string }[] };
    expect(jobs).toEqual([
      expect.objectContaining({ id: id![1], schedule: { cron: '0 9 * * 1', tz: 'Asia/Shanghai' }, message: 'weekly inbox summary' }),
    ]);
    expect((await run(['cron', 'run', id![1]], env)).code).toBe(0);
    expect((await run(['cron', 'rm', id![1]], env)).stdout).toContain(`removed ${id![1]}`);
    const gone = await run(['cron', 'rm', id![1]], env);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('No scheduled job');
  });

  it('says what a bad schedule should look like', async () => {
    const r = await run(['cron', 'add', '--every', '5s', '-m', 'too often'], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('schedule.every must be at least 1m');
  });

  it("stops at the owner's job cap with a message naming the limit", async () => {
    const { jobs } = JSON.parse((await run(['cron', 'list', '--json'], env)).stdout) as { jobs: unknown[] };
    writeFileSync(join(home, 'config.yaml'), `scheduler:\n  max_jobs_for_owner: ${jobs.length + 1}\n`);
    expect((await run(['cron', 'add', '--every', '1h', '-m', 'the last one allowed'], env)).code).toBe(0);
    const over = await run(['cron', 'add', '--every', '1h', '-m', 'one too many'], env);
    expect(over.code).toBe(1);
    expect(over.stderr).toContain('scheduler.max_jobs_for_owner');
  }, 120_000);
});
