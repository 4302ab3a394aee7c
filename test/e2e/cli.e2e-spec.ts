import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeOpenAiServer } from '../fixtures/fake-openai.server';
import { CLI_BIN as BIN, runCli as run, stopProcess as stop, waitForOutput as waitFor } from '../support/cli-process';
import { createTestDatabase, seedEmbeddedHome, TestDatabase } from '../support/test-database';

/**
 * The `nestclaw` command as users run it: the built bundles behind bin/nestclaw.js, in child
 * processes with their own NESTCLAW_HOME. `npm test` builds first (pretest).
 */
const ROOT = join(__dirname, '..', '..');

describe('nestclaw CLI', () => {
  const llm = new FakeOpenAiServer();
  const homes: string[] = [];
  const databases: TestDatabase[] = [];
  let db: TestDatabase;
  let home: string;

  /** A clean environment: nothing leaks in from the machine (no OPENAI_*, no NESTCLAW_TOKEN). */
  const envFor = (h: string, d: TestDatabase, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
    PATH: process.env.PATH,
    NESTCLAW_HOME: h,
    NO_COLOR: '1',
    ...(d.url ? { DATABASE_URL: d.url } : {}),
    ...extra,
  });
  const withModel = () => ({ OPENAI_BASE_URL: llm.url, OPENAI_API_KEY: 'sk-test', NESTCLAW_MODEL: 'fake-model' });

  const freshHome = () => {
    const h = mkdtempSync(join(tmpdir(), 'nestclaw-cli-'));
    homes.push(h);
    return h;
  };
  const freshDatabase = async () => {
    const d = await createTestDatabase();
    databases.push(d);
    return d;
  };

  beforeAll(async () => {
    for (const app of ['cli', 'gateway']) {
      if (!existsSync(join(ROOT, 'dist', 'apps', app, 'main.js')))
        throw new Error(`dist/apps/${app}/main.js is missing: run \`npm run build\` first`);
    }
    await llm.start();
    db = await freshDatabase();
    home = freshHome();
    // On the embedded run the shared home starts migrated (a copy of the run's template), so no test
    // here depends on an earlier one having created the database.
    seedEmbeddedHome(home);
  });

  afterAll(async () => {
    await llm.stop();
    for (const d of databases) await d.drop();
    for (const h of homes) rmSync(h, { recursive: true, force: true });
  });

  it('lists every command in --help, including start', async () => {
    const r = await run(['--help'], envFor(home, db));
    expect(r.code).toBe(0);
    for (const cmd of ['start', 'chat', 'migrate', 'doctor', 'token', 'approvals'])
      expect(r.stdout).toMatch(new RegExp(`^\\s+${cmd}\\b`, 'm'));
  });

  // Its own empty home and database: on the embedded database the first run includes initdb in WASM.
  it('migrate prints each migration it applies and is a no-op the second time', async () => {
    const env = envFor(freshHome(), await freshDatabase());
    const first = await run(['migrate'], env, undefined, 150_000);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/applying migration 1\/\d+: \d+_init/);
    expect(first.stdout).toMatch(/\d+ applied now, 0 already applied/);

    const second = await run(['migrate'], env);
    expect(second.code).toBe(0);
    expect(second.stdout).not.toContain('applying migration');
    expect(second.stdout).toMatch(/is up to date: all \d+ migration\(s\) already applied/);
  }, 240_000);

  it('doctor --json reports an unreachable database as a failed check instead of crashing', async () => {
    const r = await run(
      ['doctor', '--json'],
      envFor(freshHome(), { url: 'postgres://postgres@127.0.0.1:1/nowhere', drop: async () => undefined }, withModel()),
    );
    expect(r.code).toBe(1);
    expect(`${r.stdout}${r.stderr}`).not.toMatch(/^\s+at /m); // no stack trace
    const report = JSON.parse(r.stdout) as { source: string; ok: boolean; checks: { name: string; status: string; fix?: string }[] };
    // No gateway runs from this home: the CLI checks its own environment and says so.
    expect(report.source).toMatch(/^local checks \(gateway: /);
    expect(report.ok).toBe(false);
    expect(report.checks.find((c) => c.name === 'database')).toMatchObject({ status: 'fail', fix: expect.stringContaining('PostgreSQL') });
  });

  it('chat says how to start the gateway when none is listening', async () => {
    const r = await run(['chat', '--url', 'http://127.0.0.1:1'], envFor(home, db, { NESTCLAW_TOKEN: 'whatever' }), 'hello\n');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('is `nestclaw start` running? tried ws://127.0.0.1:1/ws');
  });

  describe('with a running gateway', () => {
    let gateway: ChildProcess;
    let gatewayOutput = '';
    let url: string;
    let port: string;

    beforeAll(async () => {
      gateway = spawn(process.execPath, [BIN, 'start', '--port', '0'], {
        cwd: ROOT,
        env: envFor(home, db, { ...withModel(), NESTCLAW_READY_LINE: '1' }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      gateway.stdout!.on('data', (d: Buffer) => (gatewayOutput += d.toString()));
      gateway.stderr!.on('data', (d: Buffer) => (gatewayOutput += d.toString()));
      url = (await waitFor(() => gatewayOutput, /^NESTCLAW_READY (http:\/\/\S+)$/m, 'the gateway to be ready', 80_000))[1];
      port = new URL(url).port;
    }, 90_000);

    afterAll(() => stop(gateway));

    // The CLI shares the gateway's database (with the embedded one, through embedded-postgres.json).
    it('doctor passes with a configured model and a migrated database, printing every check', async () => {
      const env = envFor(home, db, withModel());
      const r = await run(['doctor'], env);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`reporting on the running gateway at ${url}`);
      expect(r.stdout).toMatch(/^✔ config: /m);
      expect(r.stdout).toMatch(/^✔ database: .* answered in/m);
      expect(r.stdout).toMatch(/^✔ migrations: all applied$/m);
      expect(r.stdout).toMatch(new RegExp(`^✔ model default: fake-model at ${llm.url.replace(/[.]/g, '\\.')} reachable`, 'm'));
      expect(r.stdout).toMatch(/^✔ token: .*token \(mode 600\)$/m);
      expect(r.stdout).toMatch(/^all checks passed/m);
    });

    it("doctor reports the running gateway's checks, not this shell's, when the shell has no model configured", async () => {
      const r = await run(['doctor'], envFor(home, db));
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`reporting on the running gateway at ${url}`);
      expect(r.stdout).toMatch(/^✔ model default: fake-model/m);
      expect(r.stdout).not.toMatch(/no model provider is configured/);
    });

    it('doctor --local exits 1 and names the variables to set when this shell has no model provider', async () => {
      const r = await run(['doctor', '--local'], envFor(home, db));
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(/^reporting on local checks \(gateway: skipped \(--local\)\)$/m);
      expect(r.stdout).toMatch(/^✖ provider: no model provider is configured/m);
      expect(r.stdout).toMatch(/^\s+fix: set OPENAI_BASE_URL and OPENAI_API_KEY/m);
      expect(r.stdout).toMatch(/1 check\(s\) failed/);
    });

    it('doctor fails on an invalid config file the running gateway refused to reload, with the errors and a fix', async () => {
      const path = join(home, 'config.yaml');
      const before = gatewayOutput.length;
      writeFileSync(path, 'models:\n  default: { provider: opneai, model: fake-model }\n');
      try {
        // The gateway's watcher read the file and kept its running configuration.
        await waitFor(() => gatewayOutput.slice(before), /Keeping the running configuration/, 'the gateway to refuse the reload');
        const r = await run(['doctor'], envFor(home, db));
        expect(r.code).toBe(1);
        expect(r.stdout).toContain(`reporting on the running gateway at ${url}`);
        expect(r.stdout).toMatch(new RegExp(`^✖ config: Invalid configuration \\(${path.replace(/[.]/g, '\\.')}\\)`, 'm'));
        expect(r.stdout).toContain('models.default.provider: unknown provider "opneai" — did you mean "openai"?');
        expect(r.stdout).toContain('The running gateway keeps using its last valid configuration');
        expect(r.stdout).toMatch(new RegExp(`^\\s+fix: correct ${path.replace(/[.]/g, '\\.')} as listed above`, 'm'));
        // The running gateway still answers its model from the last valid configuration.
        expect(r.stdout).toMatch(/^✔ model default: fake-model/m);

        // Without a gateway to ask, the CLI reads the same file itself and says the same.
        const local = await run(['doctor', '--local'], envFor(home, db));
        expect(local.code).toBe(1);
        expect(local.stdout).toMatch(/^✖ config: Invalid configuration/m);
        expect(local.stdout).toContain('unknown provider "opneai" — did you mean "openai"?');
      } finally {
        rmSync(path, { force: true });
      }
    });

    it('chat streams the echo reply for each piped line and keeps one session across them', async () => {
      const before = llm.requests.length;
      const r = await run(['chat', '--url', url], envFor(home, db), 'hello cli\n\nsecond 你好\n');
      expect(r.stderr).not.toContain('error');
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('echo: hello cli\necho: second 你好\n');
      expect(r.stderr.match(/\(session [0-9a-f-]{36}\)/g)).toHaveLength(1);
      // The second turn went to the model with the first one as history: same session.
      const second = llm.requests.slice(before)[1].body.messages.map((m) => `${m.role}:${m.content}`);
      expect(second.slice(1)).toEqual(['user:hello cli', 'assistant:echo: hello cli', 'user:second 你好']);
    });

    it('chat finds the gateway from the configured port when --url is omitted', async () => {
      const r = await run(['chat'], envFor(home, db, { PORT: port }), 'via config\n');
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('echo: via config\n');
    });

    it('Ctrl-C during a reply cancels it and the next line is still answered', async () => {
      llm.tokenDelayMs = 40;
      try {
        const long = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
        const child = spawn(process.execPath, [BIN, 'chat', '--url', url], {
          cwd: ROOT,
          env: envFor(home, db),
          stdio: ['pipe', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
        child.stdin.write(`${long}\n`);
        await waitFor(() => stdout, /echo: word0/, 'the first streamed tokens');
        child.kill('SIGINT');
        await waitFor(() => stderr, /\(cancelled\)/, 'the cancellation');
        llm.tokenDelayMs = 0;
        child.stdin.end('after the cancel\n');
        expect(await exited).toBe(0);
        expect(stdout).not.toContain(`echo: ${long}`);
        expect(stdout).toMatch(/echo: after the cancel\n$/);
      } finally {
        llm.tokenDelayMs = 0;
      }
    });

    it('token rotate writes a new token that the running gateway accepts without a restart', async () => {
      const tokenFile = join(home, 'token');
      const old = readFileSync(tokenFile, 'utf8').trim();
      expect((await fetch(`${url}/v1/sessions`, { headers: { authorization: `Bearer ${old}` } })).status).toBe(200);

      const r = await run(['token', 'rotate'], envFor(home, db));
      expect(r.code).toBe(0);
      const rotated = r.stdout.trim();
      expect(rotated).toMatch(/^ncw_\S{20,}$/);
      expect(rotated).not.toBe(old);
      expect(readFileSync(tokenFile, 'utf8').trim()).toBe(rotated);
      expect((await run(['token'], envFor(home, db))).stdout.trim()).toBe(rotated);

      expect((await fetch(`${url}/v1/sessions`, { headers: { authorization: `Bearer ${rotated}` } })).status).toBe(200);
      expect((await fetch(`${url}/v1/sessions`, { headers: { authorization: `Bearer ${old}` } })).status).toBe(401);
    });
  });
});
