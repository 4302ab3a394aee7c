import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configSchema } from '@nestclaw/config';
import {
  BubblewrapExecutor,
  DockerExecutor,
  ExecRequest,
  measureUsage,
  RestrictedNativeExecutor,
  ShellTool,
  ToolExecutor,
} from '@nestclaw/tool';
import { describeWithHostTools, findHostTool, reportSkip } from '../../support/host-tools';

/**
 * The issue's escape list, run for real in every executor this machine has: bubblewrap, Docker
 * (the CI image and the documented default image), and the native opt-in within its documented
 * limits. Each attempt must fail; a control command proves the executor itself works.
 */
const SANDBOX_UID = 65534;
const isRoot = process.getuid?.() === 0;
const base = realpathSync(mkdtempSync(join(tmpdir(), 'nestclaw-escape-')));
const ws = join(base, 'workspace');
const other = join(base, 'other-workspace');
mkdirSync(ws);
mkdirSync(other);
writeFileSync(join(base, 'secret.txt'), 'top secret', { mode: 0o600 });
symlinkSync(join(base, 'secret.txt'), join(ws, 'link-out'));
symlinkSync('/etc/shadow', join(ws, 'link-shadow'));
if (isRoot) {
  for (const d of [ws, other]) chownSync(d, SANDBOX_UID, SANDBOX_UID);
  chmodSync(base, 0o711); // traversable, not listable: what WorkspaceLocator does for real workspaces
}

const request = (command: string, timeoutMs = 5000, workspace = ws): ExecRequest => ({
  argv: ['/bin/sh', '-c', command],
  workspace: { hostPath: workspace, access: 'rw' },
  timeoutMs,
  network: false,
  maxOutputBytes: 64 * 1024,
  limits: { memoryMb: 128, pids: 32, cpus: 1 },
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Caps {
  /** Has its own network namespace (the native executor has not: refused by config instead). */
  network: boolean;
  /** Shows no host paths inside (native runs in the host's own directory tree). */
  hidesHost: boolean;
  /** What a run may write past the workspace quota before it is stopped (Docker's kill is a round trip to the daemon: ADR 0004). */
  quotaOvershootMb: number;
}

function escapeSuite(name: string, executor: () => ToolExecutor, caps: Caps) {
  describe(`${name}: escapes that must fail`, () => {
    let listener: Server;
    let port: number;
    beforeAll(async () => {
      listener = createServer((s) => s.end('hello\n'));
      await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
      port = (listener.address() as AddressInfo).port;
    });
    afterAll(() => new Promise<void>((r) => listener.close(() => r())));

    it('runs a harmless command and writes inside the workspace (control)', async () => {
      const r = await executor().exec(request('echo inside > ok.txt && cat ok.txt && id -u'));
      expect(r.stderr).toBe('');
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toContain('inside');
      expect(r.stdout.trim().split('\n').pop()).not.toBe('0');
      expect(existsSync(join(ws, 'ok.txt'))).toBe(true);
    });

    it('cannot write outside the workspace', async () => {
      const target = join(base, 'evil.txt');
      const r = await executor().exec(request(`echo x > ${target}; echo x > /usr/evil; echo x > /evil; touch /etc/evil; echo done`));
      expect(r.stderr).toMatch(/(Read-only file system|No such file|Permission denied|cannot create)/);
      expect(existsSync(target)).toBe(false);
      expect(existsSync('/usr/evil')).toBe(false);
      expect(existsSync('/evil')).toBe(false);
      expect(existsSync('/etc/evil')).toBe(false);
    });

    it('cannot read /etc/shadow', async () => {
      const r = await executor().exec(request('cat /etc/shadow'));
      expect(r.exitCode).not.toBe(0);
      expect(r.stdout).not.toContain('root:');
    });

    it("cannot read or write another workspace or the gateway's secrets", async () => {
      const seeded = await executor().exec(request('echo other-secret > note.txt', 5000, other));
      expect(seeded.exitCode).toBe(0);
      const r = await executor().exec(
        request(`cat ${other}/note.txt; echo x > ${other}/evil.txt; cat ${base}/secret.txt; ls ${base}; echo done`),
      );
      expect(r.stdout).not.toContain('other-secret');
      expect(r.stdout).not.toContain('top secret');
      expect(r.stdout).not.toContain('workspace');
      expect(existsSync(join(other, 'evil.txt'))).toBe(false);
    });

    if (caps.network)
      it('cannot connect to 127.0.0.1:5432 or any host port', async () => {
        const r = await executor().exec(
          request(
            `bash -c 'echo > /dev/tcp/127.0.0.1/5432' && echo CONNECTED; bash -c 'cat < /dev/tcp/127.0.0.1/${port}' && echo CONNECTED`,
          ),
        );
        expect(r.stdout).not.toContain('CONNECTED');
        expect(r.stdout).not.toContain('hello');
      });

    it('stops a fork bomb at the process limit', async () => {
      const started = Date.now();
      const r = await executor().exec(
        request('bomb() { bomb | bomb & }; bomb; sleep 1; i=0; while [ $i -lt 100 ]; do sleep 1 & i=$((i+1)); done; wait', 4000),
      );
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(r.stderr).toMatch(/(fork|Resource temporarily unavailable)/i);
    }, 20_000);

    it('cannot allocate 1 GB', async () => {
      const r = await executor().exec(request('dd if=/dev/zero of=/dev/null bs=1000M count=1 && echo ALLOCATED'));
      expect(r.stdout).not.toContain('ALLOCATED');
      expect(r.exitCode).not.toBe(0);
    });

    it('cannot follow a symlink out of the workspace', async () => {
      const r = await executor().exec(request('cat link-out; cat link-shadow'));
      expect(r.stdout).not.toContain('top secret');
      expect(r.stdout).not.toContain('root:');
      expect(r.stderr).toMatch(/No such file|Permission denied/);
    });

    it('runs file operations inside the boundary', async () => {
      const f = { workspace: { hostPath: ws, access: 'rw' as const }, timeoutMs: 5000, limits: { memoryMb: 128, pids: 32, cpus: 1 } };
      await executor().writeFile(f, 'dir/notes.txt', 'line 1\n', false);
      await executor().writeFile(f, 'dir/notes.txt', 'line 2\n', true);
      expect(await executor().readFile(f, 'dir/notes.txt', 1000)).toBe('line 1\nline 2\n');
      expect(await executor().listDir(f, 'dir')).toEqual([{ name: 'notes.txt', type: 'file', size: 14 }]);
      await expect(executor().readFile(f, 'link-out', 1000)).rejects.toThrow(/No such file|Permission denied/);
    });

    it('does not survive the timeout, not even through setsid or nohup', async () => {
      for (const f of ['survived', 'survived2', 'survived3']) rmSync(join(ws, f), { force: true });
      const r = await executor().exec(
        request(
          '(sleep 1; echo alive > survived) & nohup sh -c "sleep 1; echo alive > survived2" >/dev/null 2>&1 & ' +
            'setsid sh -c "sleep 1; echo alive > survived3" >/dev/null 2>&1 & sleep 30',
          300,
        ),
      );
      expect(r.timedOut).toBe(true);
      await sleep(1700);
      expect(existsSync(join(ws, 'survived'))).toBe(false);
      expect(existsSync(join(ws, 'survived2'))).toBe(false);
      expect(existsSync(join(ws, 'survived3'))).toBe(false);
    }, 15_000);

    it('does not outlive a call that exits normally (setsid child)', async () => {
      rmSync(join(ws, 'after-exit'), { force: true });
      const r = await executor().exec(request('setsid sh -c "sleep 1; echo alive > after-exit" >/dev/null 2>&1 & echo started'));
      expect(r.stdout).toContain('started');
      await sleep(1700);
      expect(existsSync(join(ws, 'after-exit'))).toBe(false);
    }, 15_000);

    it("cannot kill another workspace's run with kill -9 -1", async () => {
      const victim = executor().exec(request('sleep 1; echo survived-the-kill', 8000, other));
      await sleep(300);
      await executor().exec(request('kill -9 -1; echo killed-all'));
      const r = await victim;
      expect(r.stdout).toContain('survived-the-kill');
    }, 20_000);

    it('has a writable /tmp for the sandbox user', async () => {
      const r = await executor().exec(request('echo tmp-ok > /tmp/probe-$$ && cat /tmp/probe-$$; rm -f /tmp/probe-$$'));
      expect(r.stdout).toContain('tmp-ok');
    });

    if (caps.hidesHost)
      it('bounds /tmp at 64 MiB, so it is no way around the workspace quota', async () => {
        const r = await executor().exec(
          request(
            'i=0; while [ $i -lt 40 ]; do dd if=/dev/zero of=/tmp/f$i bs=1M count=4 2>/dev/null || break; i=$((i+1)); done; echo wrote=$i',
            20_000,
          ),
        );
        const wrote = Number(/wrote=(\d+)/.exec(r.stdout)?.[1]);
        expect(wrote).toBeLessThanOrEqual(16);
      }, 30_000);

    if (caps.hidesHost)
      it('shows no host paths: /proc/1/cmdline, PWD and the environment', async () => {
        const r = await executor().exec(request('tr "\\0" " " < /proc/1/cmdline; echo; echo "PWD=$PWD"; env'));
        expect(r.exitCode).toBe(0);
        expect(r.stdout).toContain('PWD=/workspace');
        expect(r.stdout).not.toContain(base);
      });

    it(`stops a run that grows the workspace beyond its quota, within ${caps.quotaOvershootMb} MiB`, async () => {
      const quotaMb = 16;
      const shell = new ShellTool(
        () => configSchema.parse({ tools: { exec: { security: 'full' }, limits: { workspace_mb: quotaMb, memory_mb: 128 } } }).tools,
      );
      rmSync(join(ws, 'fill'), { recursive: true, force: true });
      const runtime = {
        sessionId: 's',
        turnId: 't',
        agentId: 'a',
        workspace: { hostPath: ws, access: 'rw' as const },
        executor: executor(),
      };
      const fill =
        'mkdir -p fill; dd if=/dev/zero of=fill/one bs=1M count=64 2>&1 | tail -1; i=0; ' +
        'while [ $i -lt 400 ]; do dd if=/dev/zero of=fill/f$i bs=1M count=2 2>/dev/null; i=$((i+1)); done; echo FILLED';
      await expect(shell.execute(runtime, { command: fill }, new AbortController().signal)).rejects.toThrow(
        /grew the workspace beyond its quota of 16 MiB/,
      );
      const used = measureUsage(ws).bytes;
      expect(used).toBeLessThanOrEqual((quotaMb + caps.quotaOvershootMb) * 1024 * 1024);
      process.stdout.write(`[quota ${name}] quota ${quotaMb} MiB, workspace after the stopped run: ${(used / 2 ** 20).toFixed(1)} MiB\n`);
      await expect(shell.execute(runtime, { command: 'echo hi' }, new AbortController().signal)).rejects.toThrow(/over its quota/);
      rmSync(join(ws, 'fill'), { recursive: true, force: true });
    }, 60_000);
  });
}

const bubblewrapPath = findHostTool('bubblewrap');
const bubblewrap = new BubblewrapExecutor(bubblewrapPath);
const native = new RestrictedNativeExecutor();
const dockerWanted = process.env.NESTCLAW_TEST_DOCKER === '1';
const defaultImage = process.env.NESTCLAW_TEST_DOCKER_DEFAULT_IMAGE;
const docker = new DockerExecutor({
  image: process.env.NESTCLAW_TEST_DOCKER_IMAGE ?? 'nestclaw-sandbox-test',
  socketPath: process.env.NESTCLAW_TEST_DOCKER_SOCKET,
});
const dockerDefault = defaultImage
  ? new DockerExecutor({ image: defaultImage, socketPath: process.env.NESTCLAW_TEST_DOCKER_SOCKET })
  : null;
const probes: Record<string, { available: boolean; reason?: string }> = {};

beforeAll(async () => {
  if (bubblewrapPath) probes.bubblewrap = await bubblewrap.probe();
  probes.native = await native.probe();
  if (dockerWanted) probes.docker = await docker.probe();
  if (dockerDefault) probes.dockerDefault = await dockerDefault.probe();
  process.stdout.write(
    `\n[nestclaw sandbox tests] ${Object.entries(probes)
      .map(([k, p]) => `${k}: ${p.available ? 'RUN' : `FAILING (${p.reason})`}`)
      .join('; ')}\n`,
  );
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

// CI promises bubblewrap (and, as root, the native opt-in): there the suites run or fail, never skip.
const inCi = process.env.CI === 'true';
describe('sandbox availability', () => {
  // Present but not working (e.g. no user namespaces) fails here, in CI; absent is the suite's visible skip below.
  (inCi && bubblewrapPath ? it : it.skip)('has a working bubblewrap in CI (.ci/run installs it)', () => {
    expect(probes.bubblewrap).toEqual({ available: true });
  });
  (inCi && isRoot ? it : it.skip)('has the native executor in CI as root', () => {
    expect(probes.native).toEqual({ available: true });
  });
});

// Jest collects tests before beforeAll runs: each test checks availability itself, loudly.
const guarded = (key: string, name: string, ex: () => ToolExecutor, caps: Caps) =>
  escapeSuite(
    name,
    () => {
      if (!probes[key]?.available) throw new Error(`${name} is not available here: ${probes[key]?.reason}`);
      return ex();
    },
    caps,
  );

describeWithHostTools(['bubblewrap'], 'the bubblewrap executor', () =>
  guarded('bubblewrap', 'bubblewrap', () => bubblewrap, { network: true, hidesHost: true, quotaOvershootMb: 64 }),
);
// Docker is opt-in even under CI=true: .ci/run sets NESTCLAW_TEST_DOCKER=1 only when it could start a private dockerd.
if (dockerWanted) guarded('docker', 'docker (CI image)', () => docker, { network: true, hidesHost: true, quotaOvershootMb: 128 });
else
  reportSkip('docker: escapes that must fail', [
    'a Docker daemon (apt-get install docker.io, start dockerd, set NESTCLAW_TEST_DOCKER=1 and NESTCLAW_TEST_DOCKER_SOCKET)',
  ]);
if (dockerDefault)
  guarded('dockerDefault', `docker (${defaultImage})`, () => dockerDefault, { network: true, hidesHost: true, quotaOvershootMb: 128 });
if (isRoot) guarded('native', 'native (opt-in)', () => native, { network: false, hidesHost: false, quotaOvershootMb: 64 });
