import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Harness, startHarness } from '../../support/gateway-harness';
import { indexed, NO_REPLAYED_ANSWERS, turnMemoryPrompt } from './memory-spec.support';

const TIMEOUT_MS = 400;

/**
 * A plugin memory store that fails: its search throws or never answers. The turn still answers, within
 * `memory.recall.timeout`, without memories, and /v1/memory/status and /doctor say why. A plugin that registers a
 * memory store its manifest does not declare fails to load, with the reason.
 */
describe('a failing plugin memory store', () => {
  let h: Harness;
  let plugins: string;
  const control = () => join(plugins, 'search-mode');
  const setMode = (mode: 'ok' | 'throw' | 'hang') => writeFileSync(control(), mode);

  beforeAll(async () => {
    plugins = mkdtempSync(join(tmpdir(), 'nestclaw-memory-faults-'));
    // Keeps chunks in memory; its search does what the control file says.
    const faulty = join(plugins, 'faulty');
    mkdirSync(faulty);
    writeFileSync(
      join(faulty, 'nestclaw.plugin.json'),
      JSON.stringify({ name: 'faulty', version: '1.0.0', entry: 'index.js', track: 'trusted', contributes: { memoryStore: true } }),
    );
    writeFileSync(
      join(faulty, 'index.js'),
      `const fs = require('node:fs');
exports.register = (api) => api.registerMemoryStore({ id: 'faulty', create: () => {
  const chunks = new Map();
  return {
    async upsert(list) { for (const c of list) { for (const [k, v] of chunks) if (v.memoryId === c.memoryId) chunks.delete(k); } for (const c of list) chunks.set(c.chunkId, c); },
    async remove(ids) { for (const [k, v] of chunks) if (ids.includes(v.memoryId)) chunks.delete(k); },
    async count() { return chunks.size; },
    search({ query, scope, agentId, limit }) {
      const mode = fs.readFileSync(${JSON.stringify(control())}, 'utf8');
      if (mode === 'throw') throw new Error('search backend down');
      if (mode === 'hang') return new Promise(() => {});
      const words = query.toLowerCase().split(/\\W+/).filter(Boolean);
      return Promise.resolve([...chunks.values()].filter((c) => c.scope === scope && c.agentId === agentId && words.some((w) => c.text.toLowerCase().includes(w))).slice(0, limit));
    },
  };
} });`,
    );
    // Registers a memory store without declaring one.
    const sneaky = join(plugins, 'sneaky');
    mkdirSync(sneaky);
    writeFileSync(
      join(sneaky, 'nestclaw.plugin.json'),
      JSON.stringify({ name: 'sneaky', version: '1.0.0', entry: 'index.js', track: 'trusted', contributes: { tools: [] } }),
    );
    writeFileSync(
      join(sneaky, 'index.js'),
      `exports.register = (api) => api.registerMemoryStore({ id: 'sneaky', create: () => { throw new Error('never'); } });`,
    );
    setMode('ok');
    h = await startHarness({
      config: {
        memory: { store: 'plugin:faulty', recall: { timeout: TIMEOUT_MS } },
        providers: NO_REPLAYED_ANSWERS,
        plugins: [
          { path: faulty, trusted: true },
          { path: sneaky, trusted: true },
        ],
      },
    });
    await h.api('/v1/memory', { json: { content: 'The boat is called Zephyrine (boat-marker)' } });
    await indexed(h);
  }, 60_000);
  afterAll(async () => {
    await h?.stop();
    rmSync(plugins, { recursive: true, force: true });
  });

  const lastFallback = async () =>
    ((await (await h.api('/v1/memory/status')).json()) as { lastFallback: { reason: string } | null }).lastFallback?.reason ?? '';

  it('recalls through the store while it works (the faults below are what change)', async () => {
    setMode('ok');
    expect(await turnMemoryPrompt(h.llm, () => h.api('/v1/chat', { json: { message: 'what is the boat called?' } }))).toContain(
      'boat-marker',
    );
  });

  it('answers the turn without memories when the search throws, and says why', async () => {
    setMode('throw');
    expect(await turnMemoryPrompt(h.llm, () => h.api('/v1/chat', { json: { message: 'what is the boat called?' } }))).toBe('');
    expect(await lastFallback()).toBe('memory store plugin:faulty failed: search backend down');
  });

  it('answers within memory.recall.timeout when the search never returns, and /doctor shows it', async () => {
    setMode('hang');
    const started = Date.now();
    expect(await turnMemoryPrompt(h.llm, () => h.api('/v1/chat', { json: { message: 'what is the boat called?' } }))).toBe('');
    // The recall's budget plus a fake-model turn, far below the test's own timeout.
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 1500);
    expect(await lastFallback()).toMatch(/took longer than 400 ms/);
    const { checks } = (await (await h.api('/doctor')).json()) as { checks: { name: string; status: string; message: string }[] };
    expect(checks.find((c) => c.name === 'memory recall')).toMatchObject({ status: 'warn' });
    expect(checks.find((c) => c.name === 'memory recall')?.message).toMatch(/took longer than 400 ms/);
  });

  it('fails a plugin that registers a memory store its manifest does not declare, naming why', async () => {
    const { plugins: listed } = (await (await h.api('/v1/plugins')).json()) as {
      plugins: { name: string; state: string; error?: string }[];
    };
    expect(listed.find((p) => p.name === 'sneaky')).toMatchObject({
      state: 'failed',
      error: `memory store "sneaky" is not declared in the manifest's contributes.memoryStore`,
    });
    expect(listed.find((p) => p.name === 'faulty')?.state).toBe('loaded');
  });
});
