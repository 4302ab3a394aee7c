import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { FakeOpenAiServer } from '../../fixtures/fake-openai.server';
import { eventually } from '../../support/eventually';
import { TEST_TOKEN } from '../../support/gateway-harness';
import { GatewayProcess, spawnGateway } from '../../support/gateway-process';
import { createTestDatabase, TestDatabase } from '../../support/test-database';

/** A heap well above what the gateway needs and well below a 180 MB file read whole. */
const HEAP_MB = 160;

/**
 * Issue 22: workspace files the sandbox can shape (a 180 MB SOUL.md, FIFOs in place of the files
 * the gateway reads) must neither exhaust the gateway's heap nor block it. The real gateway process
 * with a capped heap: a file read whole would kill it, a FIFO opened for reading would hang it.
 */
describe('oversized and non-regular workspace files (real gateway process)', () => {
  let llm: FakeOpenAiServer;
  let db: TestDatabase;
  let home: string;
  let gw: GatewayProcess | undefined;
  const agentDir = () => join(home, 'workspaces', 'agents', 'default');
  const api = (path: string, json?: unknown) => gw!.api(path, { json, signal: AbortSignal.timeout(15_000) });
  const chat = async (message: string) => {
    const res = await api('/v1/chat', { message });
    return { status: res.status, ...((await res.json()) as { reply: string }) };
  };
  const lastSystem = () => llm.requests[llm.requests.length - 1].body.messages[0].content ?? '';

  beforeAll(async () => {
    llm = new FakeOpenAiServer();
    await llm.start();
    db = await createTestDatabase();
    home = mkdtempSync(join(tmpdir(), 'nestclaw-hostile-files-'));
    writeFileSync(
      join(home, 'config.yaml'),
      stringify({
        models: { fake: { provider: 'openai-compatible', base_url: llm.url, api_key: 'k', model: 'fake-model' } },
        memory: { files: { scan_interval: 200 } },
        providers: { idempotency_ttl: 0 },
      }),
    );
    gw = await spawnGateway({
      PATH: process.env.PATH,
      NESTCLAW_HOME: home,
      NESTCLAW_TOKEN: TEST_TOKEN,
      NODE_OPTIONS: `--max-old-space-size=${HEAP_MB}`,
      ...(db.url ? { DATABASE_URL: db.url } : {}),
    });
    expect((await chat('first turn')).status).toBe(200); // writes the bootstrap templates
  }, 120_000);

  afterAll(async () => {
    await gw?.stop();
    await llm.stop();
    await db.drop();
    rmSync(home, { recursive: true, force: true });
  });

  it('answers the next turn with a 180 MB SOUL.md, reading only its head and tail', async () => {
    const soul = join(agentDir(), 'SOUL.md');
    writeFileSync(soul, '');
    truncateSync(soul, 180 * 1024 * 1024); // sparse: no disk used
    writeFileSync(soul, 'SOUL-HEAD: be brief.\n', { flag: 'r+' });
    const res = await chat('still there?');
    expect(res).toMatchObject({ status: 200, reply: 'echo: still there?' });
    expect(lastSystem()).toContain('SOUL-HEAD: be brief.');
    expect(lastSystem()).toMatch(/\[… \d{9} characters of SOUL\.md cut to fit the prompt budget/);
    expect(gw!.child.exitCode).toBeNull();
    expect(gw!.output()).not.toMatch(/heap out of memory/i);
  });

  it('answers while SOUL.md, MEMORY.md and a SKILL.md are FIFOs, and keeps scanning memory files', async () => {
    for (const f of ['SOUL.md', 'MEMORY.md']) {
      rmSync(join(agentDir(), f), { force: true });
      execFileSync('mkfifo', [join(agentDir(), f)]);
    }
    mkdirSync(join(agentDir(), 'skills', 'piped'), { recursive: true });
    execFileSync('mkfifo', [join(agentDir(), 'skills', 'piped', 'SKILL.md')]);
    mkdirSync(join(agentDir(), 'memory'), { recursive: true });
    writeFileSync(join(agentDir(), 'memory', 'plain.md'), 'The balcony plants need water on Sundays.\n');

    expect(await chat('and now?')).toMatchObject({ status: 200, reply: 'echo: and now?' });
    expect(lastSystem()).not.toContain('## SOUL.md');
    // The scan reads MEMORY.md before memory/*.md: plain.md arriving proves it got past the FIFO.
    await eventually('memory/plain.md to become a memory', async () => {
      const res = await api(`/v1/memory/search?mode=keyword&q=${encodeURIComponent('balcony plants')}`);
      const { results } = (await res.json()) as { results: { content: string }[] };
      return results.some((r) => r.content.includes('balcony plants'));
    });
    expect(gw!.output()).toMatch(/MEMORY\.md: it is not a regular file \(a FIFO\)/);
  });
});
