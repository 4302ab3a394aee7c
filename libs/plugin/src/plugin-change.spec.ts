import type { DiscoveredPlugin } from './discovery/plugin.discovery';
import { pluginManifestSchema } from './manifest/plugin-manifest.schema';
import { stickyParts } from './plugin-change';

const plugin = (manifest: Record<string, unknown>): DiscoveredPlugin => ({
  name: 'p',
  dir: '/p',
  origin: 'home',
  enabled: true,
  trusted: true,
  config: {},
  manifest: pluginManifestSchema.parse({ name: 'p', version: '1', entry: 'index.js', ...manifest }),
});

describe('what of a plugin only a restart can change', () => {
  it('is nothing for tools and providers, which come and go while the gateway runs', () => {
    expect(stickyParts(plugin({ track: 'trusted', contributes: { tools: ['p_x'], providers: ['px'] } }))).toBeUndefined();
  });

  it("names a trusted plugin's channels and memory store", () => {
    expect(stickyParts(plugin({ track: 'trusted', contributes: { channels: ['relay'], memoryStore: true } }))).toBe(
      'channels (relay) and a memory store',
    );
  });

  it('is nothing for an untrusted plugin, which only adds tools', () => {
    expect(stickyParts(plugin({ track: 'untrusted', contributes: { tools: ['p_x'] } }))).toBeUndefined();
  });
});
