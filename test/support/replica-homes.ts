import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { GatewayProcess, SpawnOptions, spawnGateway } from './gateway-process';

export const CLUSTER_TOKEN = 'cluster-test-token-0123456789';

/** The `models` entry of a replica's config: the fake model at `url`. */
export const fakeModelAt = (url: string) => ({
  fake: { provider: 'openai-compatible', base_url: url, api_key: 'sk-test', model: 'fake-model' },
});

/**
 * Gateway processes sharing one database, each with a home of its own (`<root>/<name>/config.yaml`,
 * from `configOf(name)`): the replicas of the cluster specs. Each config gets `database.pool_size: 3`
 * unless it sets one, so three gateways fit an embedded server's 20 connections (3 × (3 pool +
 * listener + migrator)).
 */
export class ReplicaHomes<N extends string> {
  readonly root: string;
  /** The replicas started and not yet killed or stopped, by name. */
  readonly running = new Map<N, GatewayProcess>();

  constructor(
    prefix: string,
    names: readonly N[],
    private readonly databaseUrl: string,
    configOf: (name: N) => Record<string, unknown>,
    private readonly bootMs: number,
  ) {
    this.root = mkdtempSync(join(tmpdir(), prefix));
    for (const name of names) {
      mkdirSync(join(this.root, name));
      writeFileSync(join(this.root, name, 'config.yaml'), stringify({ database: { pool_size: 3 }, ...configOf(name) }));
    }
  }

  async start(name: N, options?: SpawnOptions): Promise<GatewayProcess> {
    const env = {
      PATH: process.env.PATH,
      NESTCLAW_HOME: join(this.root, name),
      NESTCLAW_TOKEN: CLUSTER_TOKEN,
      DATABASE_URL: this.databaseUrl,
    };
    const gateway = await spawnGateway(env, this.bootMs, options);
    this.running.set(name, gateway);
    return gateway;
  }

  /** kill -9 of every replica still running, then the homes go. */
  async destroy(): Promise<void> {
    for (const g of this.running.values()) await g.kill9();
    this.running.clear();
    rmSync(this.root, { recursive: true, force: true });
  }
}
