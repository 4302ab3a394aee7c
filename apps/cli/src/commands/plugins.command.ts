import { Command } from 'commander';
import { createInterface } from 'node:readline/promises';
import { defaultConfigPath, loadConfig, nestclawHome } from '@nestclaw/config';
import { installPlugin, listPlugins, PluginChange, PluginChoicesStore, PluginManifest, PluginStatus } from '@nestclaw/plugin';
import { dim, finish, green, messageOf, note, out, red, yellow } from '../cli-output';
import { call, run } from '../gateway-api';

const URL_HELP = 'gateway URL (default: the gateway started from $NESTCLAW_HOME, else server.host/port)';

/**
 * `nestclaw plugins list|install|trust|enable|disable|confirm` (docs/plugins.md). `list` and `install`
 * read manifests only (no plugin code runs, no gateway needed); trust, enable and disable are written on
 * this host (`plugins/.choices.json`); a running gateway is then asked to re-read the plugin, so the
 * change applies now, else at its next start. `confirm` hands the code the gateway printed to it.
 */
export function pluginsCommand(): Command {
  const plugins = new Command('plugins').description(
    'plugins: list them (from their manifests), install, trust, enable or disable one, confirm an untrusted one',
  );
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
    .option('-u, --url <url>', URL_HELP)
    .action((name: string, code: string, opts: { url?: string }) => run(() => confirm(name, code, opts.url))());
  plugins
    .command('install')
    .description(
      'install a plugin from a folder, a .tgz or an npm package (its manifest checked first, none of its code run); installed untrusted',
    )
    .argument('<source>', 'a folder, a .tgz file or an npm package spec')
    .option('--force', 'replace an installed plugin of the same name')
    .option('-u, --url <url>', URL_HELP)
    .action((source: string, opts: { force?: boolean; url?: string }) => run(() => install(source, opts))());
  plugins
    .command('trust')
    .description("let a trusted-track plugin run inside the gateway, with the gateway's rights (asks first on a terminal)")
    .argument('<name>', 'the plugin')
    .option('-y, --yes', 'do not ask')
    .option('--revoke', 'take the trust back: the plugin is unloaded (now in a running gateway)')
    .option('-u, --url <url>', URL_HELP)
    .action((name: string, opts: { yes?: boolean; revoke?: boolean; url?: string }) => run(() => trust(name, opts))());
  for (const enabled of [true, false])
    plugins
      .command(enabled ? 'enable' : 'disable')
      .description(enabled ? 'enable a plugin (now, in a running gateway)' : 'disable a plugin: its tools, process and providers go now')
      .argument('<name>', 'the plugin')
      .option('-u, --url <url>', URL_HELP)
      .action((name: string, opts: { url?: string }) => run(() => setEnabled(name, enabled, opts.url))());
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
    const parts = p.contributes ? contributions(p.contributes) : [];
    if (parts.length) out(`  ${parts.join('; ')}`);
    if (p.permissions && p.track === 'untrusted') out(`  permissions: ${permissionAsks(p.permissions)}`);
  }
}

async function confirm(name: string, code: string, url?: string): Promise<number> {
  const body = await call<{ plugin?: PluginStatus }>({ url }, `/v1/plugins/${encodeURIComponent(name)}/confirm`, { json: { code } });
  out(green(`✔ ${name}: permissions confirmed; ${body.plugin?.state ?? 'starting'}`));
  return 0;
}

function find(name: string): PluginStatus {
  const { config } = loadConfig(defaultConfigPath());
  const p = listPlugins(nestclawHome(), config.plugins).find((x) => x.name === name);
  if (!p) throw new Error(`no plugin "${name}" (see nestclaw plugins list)`);
  return p;
}

async function install(source: string, opts: { force?: boolean; url?: string }): Promise<number> {
  const done = installPlugin(source, nestclawHome(), { force: opts.force });
  const m = done.manifest;
  out(green(`✔ ${done.replaced ? 'replaced' : 'installed'} ${m.name} ${m.version} in ${done.dir}`));
  describe(m);
  out(`It is installed UNTRUSTED: none of its code has run.`);
  if (m.track === 'trusted') out(`It asks to run inside the gateway; to allow that: nestclaw plugins trust ${m.name}`);
  else if (m.permissions.network || m.permissions.shell || m.permissions.fs.length)
    out(`It asks for permissions: it starts once you confirm the code the gateway prints (nestclaw plugins confirm ${m.name} <code>)`);
  await tellGateway(m.name, opts.url);
  return 0;
}

async function trust(name: string, opts: { yes?: boolean; revoke?: boolean; url?: string }): Promise<number> {
  const p = find(name);
  if (opts.revoke) {
    PluginChoicesStore.inHome(nestclawHome()).set(name, { trusted: false });
    out(green(`✔ ${name} is no longer trusted`));
    await tellGateway(name, opts.url);
    return 0;
  }
  if (p.track !== 'trusted') throw new Error(`${name} runs on the untrusted track (a sandboxed process): there is nothing to trust`);
  if (!opts.yes) {
    if (!process.stdin.isTTY) throw new Error('trusting a plugin asks for confirmation on a terminal; pass --yes to skip it');
    note(yellow(`A trusted plugin runs INSIDE the gateway process with all of its rights: its database, its secrets and`));
    note(yellow(`tokens, the network and your files. Trust ${name} only if you would put its code (${p.dir}) in nestclaw itself.`));
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    const answer = await rl.question(`Trust ${name}? Type "yes": `);
    rl.close();
    if (answer.trim().toLowerCase() !== 'yes') {
      note('not trusted');
      return 1;
    }
  }
  PluginChoicesStore.inHome(nestclawHome()).set(name, { trusted: true });
  out(green(`✔ ${name} is trusted`));
  await tellGateway(name, opts.url);
  return 0;
}

async function setEnabled(name: string, enabled: boolean, url?: string): Promise<number> {
  find(name);
  PluginChoicesStore.inHome(nestclawHome()).set(name, { enabled });
  out(green(`✔ ${name} is ${enabled ? 'enabled' : 'disabled'}`));
  await tellGateway(name, url);
  return 0;
}

/** Asks a running gateway to re-read the plugin (it reads trust from this host's file, never from the request). */
async function tellGateway(name: string, url?: string): Promise<void> {
  let change: PluginChange;
  try {
    change = await call<PluginChange>({ url }, `/v1/plugins/${encodeURIComponent(name)}/reload`, { method: 'POST' });
  } catch (e) {
    out(yellow(`No running gateway applied it (${messageOf(e)}): it applies at the gateway's next start.`));
    return;
  }
  out(
    `The running gateway applied it: ${name} is ${change.plugin.state}${change.plugin.tools.length ? ` (tools: ${change.plugin.tools.join(', ')})` : ''}.`,
  );
  if (change.restartNeeded) out(yellow(change.restartNeeded));
  if (change.plugin.state === 'awaiting-confirmation')
    out(`The gateway printed a confirmation code on its terminal: nestclaw plugins confirm ${name} <code>`);
}

function describe(m: PluginManifest): void {
  out(`  track: ${m.track}`);
  out(`  contributes: ${contributions(m.contributes).join('; ') || 'nothing'}`);
  if (m.track === 'untrusted') out(`  permissions: ${permissionAsks(m.permissions)}`);
  else out('  permissions: everything the gateway may do, once trusted');
}

/** What a manifest says the plugin adds, one phrase per kind (`tools: a, b`). */
function contributions(c: PluginManifest['contributes']): string[] {
  return [
    c.tools.length ? `tools: ${c.tools.join(', ')}` : '',
    c.providers.length ? `providers: ${c.providers.map((id) => `plugin:${id}`).join(', ')}` : '',
    c.channels.length ? `channels: ${c.channels.join(', ')}` : '',
    c.memoryStore ? 'memory store' : '',
  ].filter(Boolean);
}

/** The permissions an untrusted plugin asks for, as a list (or that it asks for none). */
function permissionAsks(perm: PluginManifest['permissions']): string {
  const asks = [perm.network ? 'network' : '', perm.shell ? 'shell' : '', ...perm.fs.map((g) => `${g.mode} ${g.path}`)].filter(Boolean);
  return asks.join(', ') || 'none (closed sandbox)';
}
