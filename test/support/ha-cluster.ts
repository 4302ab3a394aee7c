import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { freeLoopbackPort } from '@nestclaw/common';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { eventually } from './eventually';
import { GatewayProcess, SpawnOptions, spawnGateway } from './gateway-process';

export const CLUSTER_TOKEN = 'ha-cluster-token-0123456789';

/** The response header HAProxy adds: which replica (`r0`, `r1`, …) answered. */
export const SERVED_BY = 'x-served-by';

export interface HaClusterOptions {
  /** DATABASE_URL every replica shares: the one shared component (a scratch database). */
  databaseUrl: string;
  /** The fake model's base URL (test/fixtures/fake-openai.server.ts, in or out of process). */
  llmUrl: string;
  /** The haproxy program (findHostTool('haproxy')). */
  haproxy: string;
  /** Default 3. */
  replicas?: number;
  /** Extra config.yaml content, the same for every replica. */
  config?: Record<string, unknown>;
  /**
   * Config of replica i in its `life`th process (0 at the first start, +1 each restart), merged over
   * `config` and written before each start: e.g. a Telegram api_root prefix per life, so the fake Bot
   * API tells a restarted replica's polls from its dead predecessor's.
   */
  configOf?: (i: number, life: number) => Record<string, unknown>;
  env?: NodeJS.ProcessEnv;
  logLevel?: SpawnOptions['logLevel'];
  /** `session`: a chat request with a sessionId goes to the replica its id hashes to (deploy/haproxy); default round robin. */
  balance?: 'roundrobin' | 'session';
}

export interface HaCluster {
  /** The balancer: http://127.0.0.1:<port>. */
  url: string;
  /** Replica i's process, or undefined while it is down. */
  replicas: (GatewayProcess | undefined)[];
  /** A request through the balancer with the owner token; `json` makes it a JSON POST. */
  api(path: string, init?: { json?: unknown; method?: string; token?: string }): Promise<Response>;
  /** SIGKILL replica i (no shutdown hooks, its `replicas` row goes stale). */
  kill9(i: number): Promise<void>;
  /** Starts replica i again on its port (HAProxy's config names the ports), after killing it if it runs. */
  restart(i: number): Promise<void>;
  /** How many times replica i was restarted (its `life` in configOf). */
  life(i: number): number;
  /** Resolves once HAProxy's health checks see `count` replicas up (default all that run). */
  balancedOver(count?: number): Promise<void>;
  /** What HAProxy printed (its alerts go to stderr). */
  balancerOutput(): string;
  stop(): Promise<void>;
}

/**
 * A session's turns to one replica (its history stays warm there), as deploy/haproxy/haproxy.cfg does: the
 * body's `sessionId` is hashed (consistent hashing: a replica that leaves moves only its share); a request
 * without one (a new session, a GET) is sent round robin.
 */
const SESSION_AFFINITY = ['  option http-buffer-request', "  balance hash req.body,json_query('$.sessionId')", '  hash-type consistent'];

/**
 * The balancer's configuration: roundrobin per request over the replicas, an HTTP health check on
 * the readiness endpoint every 300 ms (down after 3 failures, up after 1 success, so a killed replica,
 * whose port refuses at once, leaves the rotation within a second and a restarted one joins when
 * migrated; a slow answer under load has 2 s), WebSocket upgrades
 * passed through (HTTP mode tunnels them; `timeout tunnel` bounds an idle socket), and a failed
 * connect retried on another replica (`option redispatch`), as a production balancer does.
 */
export function haproxyConfig(port: number, replicaPorts: number[], balance: HaClusterOptions['balance'] = 'roundrobin'): string {
  return [
    'global',
    '  maxconn 2000',
    'defaults',
    '  mode http',
    '  timeout connect 1s',
    '  timeout client 60s',
    '  timeout server 60s',
    '  timeout tunnel 10m',
    '  timeout http-keep-alive 5s',
    // A readiness answer slower than this counts as a failure; without it HAProxy would allow only `inter`.
    '  timeout check 2s',
    '  retries 2',
    '  option redispatch',
    'frontend nestclaw',
    `  bind 127.0.0.1:${port}`,
    '  default_backend gateways',
    'backend gateways',
    ...(balance === 'session' ? SESSION_AFFINITY : ['  balance roundrobin']),
    '  option httpchk GET /health/ready',
    '  http-check expect status 200',
    '  default-server inter 300ms fall 3 rise 1',
    `  http-response set-header ${SERVED_BY} %s`,
    ...replicaPorts.map((p, i) => `  server r${i} 127.0.0.1:${p} check`),
    '',
  ].join('\n');
}

/**
 * N gateway processes (the built gateway, spawnGateway) on one PostgreSQL database behind a real
 * HAProxy on loopback: the deployment issue 24 is about, on one machine. Each replica has its own
 * $NESTCLAW_HOME (as each pod has its own volume) and the same config; the database is the only
 * thing they share. Replicas start at the same moment, as a Deployment's pods do.
 */
export async function startHaCluster(options: HaClusterOptions): Promise<HaCluster> {
  const count = options.replicas ?? 3;
  const homes = Array.from({ length: count }, () => mkdtempSync(join(tmpdir(), 'nestclaw-ha-')));
  const config = {
    models: { fake: { provider: 'openai-compatible', base_url: options.llmUrl, api_key: 'sk-test', model: 'fake-model' } },
    ...options.config,
  };
  const lives = homes.map(() => 0);
  const writeConfig = (i: number) =>
    writeFileSync(join(homes[i], 'config.yaml'), stringify({ ...config, ...options.configOf?.(i, lives[i]) }));
  const ports = await Promise.all(homes.map(() => freeLoopbackPort()));
  const envOf = (i: number): NodeJS.ProcessEnv => ({
    PATH: process.env.PATH,
    NESTCLAW_HOME: homes[i],
    NESTCLAW_TOKEN: CLUSTER_TOKEN,
    DATABASE_URL: options.databaseUrl,
    ...options.env,
  });
  const spawnReplica = (i: number) => {
    writeConfig(i);
    return spawnGateway(envOf(i), 50_000, { port: ports[i], logLevel: options.logLevel });
  };

  const replicas: (GatewayProcess | undefined)[] = new Array<GatewayProcess | undefined>(count).fill(undefined);
  const started = await Promise.allSettled(homes.map((_, i) => spawnReplica(i)));
  started.forEach((s, i) => (replicas[i] = s.status === 'fulfilled' ? s.value : undefined));
  const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');

  const balancerPort = await freeLoopbackPort();
  const configFile = join(homes[0], 'haproxy.cfg');
  writeFileSync(configFile, haproxyConfig(balancerPort, ports, options.balance));
  let balancerOut = '';
  const balancer: ChildProcess = spawn(options.haproxy, ['-db', '-f', configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  balancer.stdout!.on('data', (d: Buffer) => (balancerOut += d.toString()));
  balancer.stderr!.on('data', (d: Buffer) => (balancerOut += d.toString()));
  const balancerExited = new Promise<void>((resolve) => balancer.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${balancerPort}`;

  const stop = async () => {
    await Promise.all(replicas.map((r) => r?.stop()));
    if (balancer.exitCode === null && balancer.signalCode === null) {
      balancer.kill('SIGTERM');
      await balancerExited;
    }
    for (const home of homes) rmSync(home, { recursive: true, force: true });
  };
  if (failed) {
    await stop();
    throw failed.reason;
  }

  const cluster: HaCluster = {
    url,
    replicas,
    api: (path, init = {}) =>
      fetch(`${url}${path}`, {
        method: init.method ?? (init.json !== undefined ? 'POST' : 'GET'),
        headers: {
          authorization: `Bearer ${init.token ?? CLUSTER_TOKEN}`,
          ...(init.json !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        body: init.json !== undefined ? JSON.stringify(init.json) : undefined,
      }),
    kill9: async (i) => {
      await replicas[i]?.kill9();
      replicas[i] = undefined;
    },
    restart: async (i) => {
      await replicas[i]?.kill9();
      replicas[i] = undefined;
      lives[i]++;
      replicas[i] = await spawnReplica(i);
    },
    balancedOver: async (want = replicas.filter(Boolean).length) => {
      // Round robin over the healthy: `want` consecutive answers from distinct replicas proves they are all in rotation.
      await eventually(
        `HAProxy to balance over ${want} replicas`,
        async () => {
          if (balancer.exitCode !== null) throw new Error(`haproxy exited:\n${balancerOut}`);
          const seen = new Set<string>();
          for (let n = 0; n < want * 2; n++) {
            const res = await fetch(`${url}/health/ready`).catch(() => undefined);
            if (res?.status === 200) seen.add(res.headers.get(SERVED_BY) ?? '');
            await res?.body?.cancel();
          }
          if (seen.size < want) throw new Error(`balanced over ${[...seen].join(', ') || 'nothing'}`);
          return true;
        },
        20_000,
      );
    },
    life: (i) => lives[i],
    balancerOutput: () => balancerOut,
    stop,
  };
  await cluster.balancedOver(count);
  return cluster;
}
