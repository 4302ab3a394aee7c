import type { DoctorCheck } from '@nestclaw/doctor';
import type { PluginStatus } from './plugin-status';

const GOOD = new Set(['loaded', 'running', 'found']);

/** One /doctor line per plugin: its track, state and tools (never its config values). */
export function pluginChecks(plugins: readonly PluginStatus[]): DoctorCheck[] {
  return plugins.map((p) => {
    const name = `plugin ${p.name}`;
    const what = `${p.version ? `v${p.version}, ` : ''}${p.track ?? 'unknown'} track`;
    const tools = p.tools.length ? `, tools: ${p.tools.join(', ')}` : '';
    if (GOOD.has(p.state))
      return { name, status: 'ok', message: `${what}: ${p.state}${tools}${p.restarts ? `, ${p.restarts} restart(s)` : ''}` };
    if (p.state === 'disabled') return { name, status: 'ok', message: `${what}: disabled` };
    return {
      name,
      status: p.state === 'failed' ? 'fail' : 'warn',
      message: `${what}: ${p.state}${p.error ? ` (${p.error})` : ''}${tools}`,
      fix: FIXES[p.state] ?? 'see docs/plugins.md',
    };
  });
}

const FIXES: Record<string, string> = {
  failed: 'fix the plugin (its manifest, entry or config) or disable it: nestclaw plugins disable <name>; see docs/plugins.md',
  'not-trusted': 'it asks to run inside the gateway: nestclaw plugins trust <name>, only if you trust its code',
  'awaiting-confirmation': 'confirm its permissions with the code printed on the gateway terminal: nestclaw plugins confirm <name> <code>',
  restarting: 'the plugin keeps failing; nestclaw restarts it with backoff (see the gateway log)',
  starting: 'the plugin is starting',
};
