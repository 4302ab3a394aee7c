import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { FakeOpenAiServer } from '../fixtures/fake-openai.server';
import { GatewayProcess, spawnGateway } from '../support/gateway-process';

/**
 * The embedded database serves one gateway process (docs/scaling.md): a second gateway started on the
 * same $NESTCLAW_HOME without DATABASE_URL refuses to start and says how to scale out, instead of
 * quietly running a second replica on a database that was never meant to be shared.
 */
describe('embedded database: one gateway per home', () => {
  let llm: FakeOpenAiServer;
  let home: string;
  let first: GatewayProcess;
  beforeAll(async () => {
    llm = new FakeOpenAiServer();
    await llm.start();
    home = mkdtempSync(join(tmpdir(), 'nestclaw-single-'));
    writeFileSync(
      join(home, 'config.yaml'),
      stringify({ models: { fake: { provider: 'openai-compatible', base_url: llm.url, api_key: 'sk-test', model: 'fake-model' } } }),
    );
    first = await spawnGateway({ PATH: process.env.PATH, NESTCLAW_HOME: home, NESTCLAW_TOKEN: 'single-token-0123456789' });
  });
  afterAll(async () => {
    await first?.stop();
    await llm?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('refuses a second gateway on the same home, naming DATABASE_URL as the way to run several', async () => {
    const second = spawnGateway({ PATH: process.env.PATH, NESTCLAW_HOME: home, NESTCLAW_TOKEN: 'single-token-0123456789' });
    await expect(second).rejects.toThrow(/embedded database is single-process[\s\S]*DATABASE_URL/);
    // The first one is untouched.
    expect((await first.api('/v1/chat', { json: { message: 'still here' } })).status).toBe(200);
  });
});
