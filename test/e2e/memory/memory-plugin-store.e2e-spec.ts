import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import { eventually } from '../../support/eventually';
import { Harness, startHarness } from '../../support/gateway-harness';
import { indexed, NO_REPLAYED_ANSWERS, turnMemoryPrompt } from './memory-spec.support';

const SAMPLE = resolve(__dirname, '../../../examples/plugins/memory-jsonl');

/**
 * The memory-store extension point with the sample plugin (examples/plugins/memory-jsonl) as the search
 * store: memories reach its file through the index worker, recall goes through its search and back to
 * Postgres, forget removes them, and an empty store is refilled from Postgres.
 */
describe('a trusted plugin memory store (memory.store: plugin:memory-jsonl)', () => {
  let h: Harness;
  let dir: string;
  const file = () => join(dir, 'chunks.jsonl');
  const held = () => (existsSync(file()) ? readFileSync(file(), 'utf8') : '');
  const ask = (message: string) => turnMemoryPrompt(h.llm, () => h.api('/v1/chat', { json: { message } }));
  const remember = async (content: string) => ((await (await h.api('/v1/memory', { json: { content } })).json()) as { id: string }).id;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'nestclaw-memory-jsonl-'));
    h = await startHarness({
      config: {
        memory: { store: 'plugin:memory-jsonl', recall: { timeout: 3000 } },
        providers: NO_REPLAYED_ANSWERS,
        plugins: [{ path: SAMPLE, trusted: true, config: { dir } }],
      },
    });
  }, 60_000);
  afterAll(async () => {
    await h?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("indexes a stored Chinese memory into the plugin's file and recalls it into the next turn's prompt", async () => {
    await remember('我的猫叫小白，喜欢吃鱼 (cat-marker-1)');
    await indexed(h);
    await eventually('the chunk in the plugin file', () => held().includes('cat-marker-1'));
    expect(held()).toContain('我的猫叫小白');
    const prompt = await ask('我的猫叫什么名字？');
    expect(prompt).toContain('我的猫叫小白');
    const status = (await (await h.api('/v1/memory/status')).json()) as { index: { ready: boolean; version: string } };
    expect(status.index.ready).toBe(true);
  });

  it('forgets at once: gone from the next recall, then removed from the plugin store', async () => {
    const id = await remember('The garage door code is 4711 (door-marker-2)');
    await indexed(h);
    await eventually('the chunk in the plugin file', () => held().includes('door-marker-2'));
    expect(await ask('what is the garage door code?')).toContain('door-marker-2');
    expect((await h.api(`/v1/memory/${id}`, { method: 'DELETE' })).status).toBe(200);
    expect(await ask('what is the garage door code?')).not.toContain('door-marker-2');
    await eventually('the chunk gone from the plugin file', () => !held().includes('door-marker-2'));
  });

  it('refills an empty plugin store from Postgres at start-up, then recalls from it', async () => {
    await remember('北京的烤鸭店在前门 (duck-marker-3)');
    await indexed(h);
    // The store now points at an empty folder: nestclaw must notice and refill it with every live memory.
    const before = dir;
    dir = mkdtempSync(join(tmpdir(), 'nestclaw-memory-jsonl-'));
    const cfgFile = join(h.home, 'config.yaml');
    const cfg = parse(readFileSync(cfgFile, 'utf8')) as { plugins: { config: { dir: string } }[] };
    cfg.plugins[0].config.dir = dir;
    writeFileSync(cfgFile, stringify(cfg));
    rmSync(before, { recursive: true, force: true });
    await h.restart();
    await eventually('the plugin store refilled', () => held().includes('duck-marker-3') && held().includes('cat-marker-1'), 30_000);
    expect(held()).not.toContain('door-marker-2');
    await indexed(h);
    expect(await ask('烤鸭店在哪里？')).toContain('北京的烤鸭店在前门');
  }, 60_000);
});
