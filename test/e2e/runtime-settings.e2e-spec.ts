import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GatewayProcess, spawnGateway } from '../support/gateway-process';

/** The NESTCLAW_RUNTIME line the gateway prints with its ready line. */
function runtimeOf(gw: GatewayProcess): { heapLimitMb: number; mallocArenaMax: string | null } {
  const line = gw
    .output()
    .split('\n')
    .find((l) => l.startsWith('NESTCLAW_RUNTIME '));
  if (!line) throw new Error(`no NESTCLAW_RUNTIME line in:\n${gw.output()}`);
  return JSON.parse(line.slice('NESTCLAW_RUNTIME '.length)) as { heapLimitMb: number; mallocArenaMax: string | null };
}

/** `nestclaw start` from a plain shell, with none of npm start's settings in its environment. */
describe('the runtime settings when started as `nestclaw start`', () => {
  let home: string;
  let gw: GatewayProcess | undefined;

  beforeEach(() => (home = mkdtempSync(join(tmpdir(), 'nestclaw-runtime-'))));
  afterEach(async () => {
    await gw?.stop();
    gw = undefined;
    rmSync(home, { recursive: true, force: true });
  });

  it('caps the heap at 256 MB and sets the allocator, as npm start does', async () => {
    gw = await spawnGateway({ PATH: process.env.PATH, NESTCLAW_HOME: home }, 50_000, { viaLauncher: true });
    const runtime = runtimeOf(gw);
    // heap_size_limit is the old space plus the young generation: 256 + 3 × 8 MB here, not the GBs of the default.
    expect(runtime.heapLimitMb).toBeGreaterThanOrEqual(256);
    expect(runtime.heapLimitMb).toBeLessThan(300);
    expect(runtime.mallocArenaMax).toBe('2');
  }, 60_000);

  it("keeps the user's own NODE_OPTIONS heap size", async () => {
    const env = { PATH: process.env.PATH, NESTCLAW_HOME: home, NODE_OPTIONS: '--max-old-space-size=512' };
    gw = await spawnGateway(env, 50_000, { viaLauncher: true });
    const runtime = runtimeOf(gw);
    expect(runtime.heapLimitMb).toBeGreaterThanOrEqual(512);
    expect(runtime.heapLimitMb).toBeLessThan(560);
    expect(runtime.mallocArenaMax).toBe('2');
  }, 60_000);
});
