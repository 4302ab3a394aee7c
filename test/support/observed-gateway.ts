import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { FakeOpenAiServer } from '../fixtures/fake-openai.server';
import { GatewayProcess, spawnGateway } from './gateway-process';
import { TEST_TOKEN } from './gateway-harness';
import { createTestDatabase, TestDatabase } from './test-database';

export interface ObservedGateway {
  gw: GatewayProcess;
  llm: FakeOpenAiServer;
  home: string;
  api(path: string, json?: unknown): Promise<Response>;
  stop(): Promise<void>;
}

/** The built gateway as its own process (so the OpenTelemetry SDK patches pg for real) against a fake LLM. */
export async function startObservedGateway(config: Record<string, unknown>, env: NodeJS.ProcessEnv = {}): Promise<ObservedGateway> {
  const llm = new FakeOpenAiServer();
  await llm.start();
  const db: TestDatabase = await createTestDatabase();
  const home = mkdtempSync(join(tmpdir(), 'nestclaw-obs-'));
  const models = {
    fake: {
      provider: 'openai-compatible',
      base_url: llm.url,
      api_key: 'sk-test-secret-key',
      model: 'fake-model',
      price: { input: 1, output: 2 },
    },
  };
  // The same server under a second name: a primary to fail over from.
  const flaky = { ...models.fake };
  writeFileSync(join(home, 'config.yaml'), stringify({ models: { ...models, flaky }, ...config }));
  const gw = await spawnGateway({
    PATH: process.env.PATH,
    NESTCLAW_HOME: home,
    NESTCLAW_TOKEN: TEST_TOKEN,
    ...(db.url ? { DATABASE_URL: db.url } : {}),
    ...env,
  });
  return {
    gw,
    llm,
    home,
    api: (path, json) =>
      fetch(`${gw.url}${path}`, {
        method: json === undefined ? 'GET' : 'POST',
        headers: { authorization: `Bearer ${TEST_TOKEN}`, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
        body: json === undefined ? undefined : JSON.stringify(json),
      }),
    stop: async () => {
      await gw.stop();
      await llm.stop();
      await db.drop();
      rmSync(home, { recursive: true, force: true });
    },
  };
}
