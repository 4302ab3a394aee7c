import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { QueryResultRow } from 'pg';
import { stringify } from 'yaml';
import { DatabaseService } from '@nestclaw/db';
import { startGateway, RunningGateway } from '../../apps/gateway/src/bootstrap';
import { FakeOpenAiServer } from '../fixtures/fake-openai.server';
import { createTestDatabase, seedEmbeddedHome, TestDatabase } from './test-database';

export const TEST_TOKEN = 'test-token-0123456789';

export interface Harness {
  gateway: RunningGateway;
  llm: FakeOpenAiServer;
  /** The per-file server database (`db.url`), or `url: undefined` on the embedded database. */
  db: TestDatabase;
  home: string;
  env: NodeJS.ProcessEnv;
  /** fetch against the gateway with the bearer token. */
  api(path: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
  /**
   * Runs SQL on the gateway's own database through its pool: the same database on a server and on
   * the embedded one (where `db.url` is undefined). For assertions on stored rows.
   */
  query<R extends QueryResultRow = QueryResultRow>(text: string, values?: unknown[]): Promise<R[]>;
  /** The URL the gateway connected to (the embedded server's loopback socket when embedded). */
  databaseUrl(): string;
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export interface HarnessOptions {
  /** Extra config.yaml content (merged over the defaults below). */
  config?: Record<string, unknown>;
  env?: NodeJS.ProcessEnv;
  /**
   * The newcomer's first start: the embedded database even when a server is available, created
   * from an empty data directory (initdb and every migration). Without it, on the embedded run, the
   * home starts with a copy of the run's migrated data directory.
   */
  embedded?: boolean;
  /** Extra keys for the fake model's entry in `models` (e.g. `context_window`). */
  model?: Record<string, unknown>;
  /** Runs before the gateway starts (write workspace files under `home`). */
  beforeStart?: (home: string) => void;
}

/** Starts the real gateway (same bootstrap as main.ts) on 127.0.0.1:0 against a fake LLM. */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const llm = new FakeOpenAiServer();
  await llm.start();
  const db = options.embedded ? { url: undefined, drop: async () => undefined } : await createTestDatabase();
  const home = mkdtempSync(join(tmpdir(), 'nestclaw-test-'));
  const config = {
    models: {
      fake: {
        provider: 'openai-compatible',
        base_url: llm.url,
        api_key: 'sk-test',
        model: 'fake-model',
        price: { input: 1, output: 2 },
        ...options.model,
      },
    },
    ...options.config,
  };
  writeFileSync(join(home, 'config.yaml'), stringify(config));
  if (!options.embedded && !db.url && !options.env?.DATABASE_URL) seedEmbeddedHome(home);
  options.beforeStart?.(home);
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    NESTCLAW_HOME: home,
    NESTCLAW_TOKEN: TEST_TOKEN,
    ...(db.url ? { DATABASE_URL: db.url } : {}),
    ...options.env,
  };
  const start = () => startGateway({ env, port: 0, logLevels: ['error'], watchConfig: false });
  const harness: Harness = {
    gateway: await start(),
    llm,
    db,
    home,
    env,
    api: (path, init = {}) => {
      const { json, ...rest } = init;
      return fetch(`${harness.gateway.url}${path}`, {
        ...rest,
        method: rest.method ?? (json !== undefined ? 'POST' : 'GET'),
        headers: {
          authorization: `Bearer ${TEST_TOKEN}`,
          ...(json !== undefined ? { 'content-type': 'application/json' } : {}),
          ...(rest.headers ?? {}),
        },
        body: json !== undefined ? JSON.stringify(json) : rest.body,
      });
    },
    query: async <R extends QueryResultRow>(text: string, values?: unknown[]) =>
      (await harness.gateway.app.get(DatabaseService).pool.query<R>(text, values)).rows,
    databaseUrl: () => harness.gateway.app.get(DatabaseService).url,
    restart: async () => {
      await harness.gateway.close();
      harness.gateway = await start();
    },
    stop: async () => {
      await harness.gateway.close();
      await llm.stop();
      await db.drop();
      rmSync(home, { recursive: true, force: true });
    },
  };
  return harness;
}
