import { Command } from 'commander';
import { defaultConfigPath, loadConfig, nestclawHome } from '@nestclaw/config';
import { listPlugins, PluginStatus } from '@nestclaw/plugin';
import { dim, finish, green, messageOf, note, out, red, yellow } from '../cli-output';
import { call, run } from '../gateway-api';

/**
 * `nestclaw plugins list|confirm` (docs/plugins.md). `list` reads the manifests only (no plugin code
 * runs, no gateway needed); `confirm` hands the code the gateway printed to the running gateway.
 */
export function pluginsCommand(): Command {
  const plugins = new Command('plugins').description('plugins: list them (from their manifests), confirm an untrusted one');
  plugins
    .command('list', { isDefault: true })
    .description('every plugin found, with its track, state, contributions and permissions (runs none of them)')
    .option('--json', 'print as JSON')
    .action((opts: { json?: boolean }) => {
      try {
        const { config } = loadConfig(defaultConfigPath());
        const found = listPlugins(nestclawHome(), config.plugins);
        if (opts.json) out(JSON.stringify({ plugins: found }, null, 2));
        else print(found);
        finish(found.some((p) => p.state === 'failed') ? 1 : 0);
      } catch (e) {
        note(red(`✖ ${messageOf(e)}`));
        finish(1);
      }
    });
  plugins
    .command('confirm')
    .description("confirm an untrusted plugin's permissions with the code the gateway printed on its terminal")
    .argument('<name>', 'the plugin')
    .argument('<code>', 'the code from the gateway terminal')
    .option('-u, --url <url>', 'gateway URL (default: the gateway started from $NESTCLAW_HOME, else server.host/port)')
    .action((name: string, code: string, opts: { url?: string }) => run(() => confirm(name, code, opts.url))());
  return plugins;
}

function print(plugins: readonly PluginStatus[]): void {
  if (!plugins.length) {
    out(`no plugins (folders in ${nestclawHome()}/plugins, or plugins: in config)`);
    return;
  }
  for (const p of plugins) {
    const state = p.state === 'failed' ? red(p.state) : p.state === 'found' ? green('ok') : yellow(p.state);
    out(`${p.name}${p.version ? ` ${p.version}` : ''}  ${p.track ?? '?'}${p.trusted ? ' (marked trusted)' : ''}  ${state}`);
    out(dim(`  ${p.dir || '(not installed)'}`));
    if (p.error) out(red(`  ${p.error}`));
    const c = p.contributes;
    if (c) {
      const parts = [
        c.tools.length ? `tools: ${c.tools.join(', ')}` : '',
        c.providers.length ? `providers: ${c.providers.map((id) => `plugin:${id}`).join(', ')}` : '',
        c.channels.length ? `channels: ${c.channels.join(', ')}` : '',
        c.memoryStore ? 'memory store' : '',
      ].filter(Boolean);
      if (parts.length) out(`  ${parts.join('; ')}`);
    }
    const perm = p.permissions;
    if (perm && p.track === 'untrusted') {
      const asks = [perm.network ? 'network' : '', perm.shell ? 'shell' : '', ...perm.fs.map((g) => `${g.mode} ${g.path}`)].filter(Boolean);
      out(`  permissions: ${asks.join(', ') || 'none (closed sandbox)'}`);
    }
  }
}

async function confirm(name: string, code: string, url?: string): Promise<number> {
  const body = await call<{ plugin?: PluginStatus }>({ url }, `/v1/plugins/${encodeURIComponent(name)}/confirm`, { json: { code } });
  out(green(`✔ ${name}: permissions confirmed; ${body.plugin?.state ?? 'starting'}`));
  return 0;
}
