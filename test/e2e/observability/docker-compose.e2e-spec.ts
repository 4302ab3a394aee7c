import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { Harness, startHarness, TEST_TOKEN } from '../../support/gateway-harness';
import { deployDir } from '../../support/deploy-queries';

/**
 * `docker compose up` from a fresh clone, checked without a Docker engine: the compose file parsed,
 * every bind-mounted host path present in git (a missing one makes Docker create a directory in its
 * place) with the kind the container expects, and the one-shot step that gives Prometheus its
 * scrape token run for real against a gateway.
 */
const root = join(deployDir(), '..');

interface LongVolume {
  type: string;
  source: string;
  target: string;
  read_only?: boolean;
}
interface Service {
  volumes?: (string | LongVolume)[];
  depends_on?: string[] | Record<string, { condition: string }>;
  command?: string[];
  environment?: Record<string, string>;
}
const compose = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8')) as {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
};

/** A mount as [source, target]: source is a host path (./…, /…) or a named volume. */
const mounts = (s: Service): { source: string; target: string }[] =>
  (s.volumes ?? []).map((v) => {
    if (typeof v !== 'string') return { source: v.source, target: v.target };
    const [source, target] = v.split(':');
    return { source, target };
  });
const isBind = (source: string) => source.startsWith('.') || source.startsWith('/');

/** What a fresh clone has at `path`: what git tracks, not what happens to be in this checkout. */
function kindInClone(path: string): 'file' | 'directory' | 'missing' {
  const tracked = execFileSync('git', ['ls-files', '--', path], { cwd: root, encoding: 'utf8' }).split('\n').filter(Boolean);
  if (!tracked.length) return 'missing';
  return tracked.length === 1 && tracked[0] === path ? 'file' : 'directory';
}

/** Resolves a path inside a service's container to the mount holding it. */
function mountFor(service: Service, containerPath: string): { source: string; rest: string } | undefined {
  const m = mounts(service)
    .filter(({ target }) => containerPath === target || containerPath.startsWith(`${target}/`))
    .sort((a, b) => b.target.length - a.target.length)[0];
  return m && { source: m.source, rest: posix.relative(m.target, containerPath) };
}

describe('docker-compose.yml from a fresh clone', () => {
  it('bind-mounts only host paths git tracks, as the kind the container expects', () => {
    const problems: string[] = [];
    for (const [name, service] of Object.entries(compose.services))
      for (const { source, target } of mounts(service).filter((m) => isBind(m.source))) {
        const path = posix.normalize(source);
        const kind = kindInClone(path);
        if (kind === 'missing')
          problems.push(`${name}: ${source} (→ ${target}) is not in a fresh clone; Docker would create a directory there`);
        // A file-like target (has an extension) must be a file on the host, and a directory target a directory.
        const expected = /\.[a-z0-9]+$/i.test(target) ? 'file' : 'directory';
        if (kind !== 'missing' && kind !== expected) problems.push(`${name}: ${source} is a ${kind}, but ${target} needs a ${expected}`);
      }
    expect(problems).toEqual([]);
  });

  it('declares every named volume and depends only on services it defines', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      for (const { source } of mounts(service).filter((m) => !isBind(m.source)))
        expect({ service: name, volume: source, declared: source in (compose.volumes ?? {}) }).toMatchObject({ declared: true });
      const deps = Array.isArray(service.depends_on) ? service.depends_on : Object.keys(service.depends_on ?? {});
      for (const dep of deps) expect(Object.keys(compose.services)).toContain(dep);
    }
  });

  it('gives Prometheus every file its config names, the scrape token from the step that writes it before Prometheus starts', () => {
    const prometheus = compose.services.prometheus;
    const configPath = prometheus.command!.find((a) => a.startsWith('--config.file='))!.slice('--config.file='.length);
    const configMount = mountFor(prometheus, configPath)!;
    expect(kindInClone(posix.normalize(configMount.source))).toBe('file');
    const config = parse(readFileSync(join(root, configMount.source), 'utf8')) as {
      rule_files: string[];
      scrape_configs: { authorization?: { credentials_file?: string } }[];
    };
    for (const rules of config.rule_files) {
      const m = mountFor(prometheus, rules);
      expect({ rules, mounted: !!m && isBind(m.source) && kindInClone(posix.normalize(posix.join(m.source, m.rest))) === 'file' }).toEqual({
        rules,
        mounted: true,
      });
    }
    const credentials = config.scrape_configs.map((s) => s.authorization?.credentials_file).filter((f): f is string => !!f);
    expect(credentials.length).toBeGreaterThan(0);
    for (const file of credentials) {
      const m = mountFor(prometheus, file)!;
      // Not a host file someone must create: a named volume the metrics-token step fills.
      expect(isBind(m.source)).toBe(false);
      const writer = compose.services['metrics-token'];
      const writes = writer.environment!.METRICS_TOKEN_FILE;
      expect(mountFor(writer, writes)).toEqual({ source: m.source, rest: m.rest });
      expect(prometheus.depends_on).toMatchObject({ 'metrics-token': { condition: 'service_completed_successfully' } });
    }
  });
});

describe('the metrics-token step (deploy/prometheus/issue-metrics-token.js) against a real gateway', () => {
  const script = join(deployDir(), 'prometheus', 'issue-metrics-token.js');
  let h: Harness;
  let dir: string;
  beforeAll(async () => {
    h = await startHarness();
    dir = mkdtempSync(join(tmpdir(), 'nestclaw-metrics-token-'));
    // What the nestclaw-home volume holds: the owner token the gateway wrote.
    writeFileSync(join(dir, 'owner-token'), `${TEST_TOKEN}\n`, { mode: 0o600 });
  });
  afterAll(async () => {
    await h.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const run = (env: Record<string, string>) =>
    promisify(execFile)(process.execPath, [script], {
      env: { PATH: process.env.PATH, NESTCLAW_URL: h.gateway.url, NESTCLAW_TOKEN_FILE: join(dir, 'owner-token'), ...env },
    });
  const as = (token: string, path: string) => fetch(`${h.gateway.url}${path}`, { headers: { authorization: `Bearer ${token}` } });

  it('writes a token that may scrape /metrics and nothing else, readable by Prometheus', async () => {
    const out = join(dir, 'secrets', 'metrics-token');
    const { stdout } = await run({ METRICS_TOKEN_FILE: out });
    expect(stdout).toContain('wrote a token with the metrics scope');
    const token = readFileSync(out, 'utf8');
    expect(token).not.toBe(TEST_TOKEN);
    expect((await as(token, '/metrics')).status).toBe(200);
    expect((await as(token, '/v1/sessions')).status).toBe(403);
    expect((statSync(out).mode & 0o777).toString(8)).toBe('444');
  });

  it('keeps a token that still works on the next up', async () => {
    const out = join(dir, 'kept', 'metrics-token');
    await run({ METRICS_TOKEN_FILE: out });
    const first = readFileSync(out, 'utf8');
    const { stdout } = await run({ METRICS_TOKEN_FILE: out });
    expect(stdout).toContain('still works; kept');
    expect(readFileSync(out, 'utf8')).toBe(first);
  });

  it('replaces a token that no longer works', async () => {
    const out = join(dir, 'replaced', 'metrics-token');
    await run({ METRICS_TOKEN_FILE: out });
    writeFileSync(out, 'revoked-or-garbage');
    await run({ METRICS_TOKEN_FILE: out });
    expect((await as(readFileSync(out, 'utf8'), '/metrics')).status).toBe(200);
  });

  it('fails naming the owner token file when there is none', async () => {
    await expect(run({ METRICS_TOKEN_FILE: join(dir, 'never'), NESTCLAW_TOKEN_FILE: join(dir, 'no-such-token') })).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining(`no owner token: ${join(dir, 'no-such-token')} does not exist and NESTCLAW_TOKEN is not set`),
    });
  });
});
