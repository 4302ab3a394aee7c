import { Command } from 'commander';
import type { CliStatus } from '@nestclaw/cli-bridge';
import { dim, green, out, red } from '../cli-output';
import { call, run } from '../gateway-api';

/** `nestclaw cli list`: the coding CLIs the gateway drives from chat, with their tmux sessions (through `GET /v1/clis`). */
export function cliCommand(): Command {
  const cli = new Command('cli')
    .description('coding CLIs driven from chat (Claude Code, …): list their sessions')
    .option('--url <url>', 'gateway URL');
  cli
    .command('list', { isDefault: true })
    .description('every configured CLI, its tmux sessions (running or exited), what each is on and which chats drive it')
    .option('--json', 'print as JSON')
    .action((o: { json?: boolean }) =>
      run(async () => {
        const { clis } = await call<{ clis: CliStatus[] }>(cli.opts<{ url?: string }>(), '/v1/clis');
        if (o.json) out(JSON.stringify(clis, null, 2));
        else out(describe(clis));
        return 0;
      })(),
    );
  return cli;
}

function describe(clis: CliStatus[]): string {
  if (!clis.length) return dim('No CLIs are configured (`clis:` in the config file; see "Drive your coding CLI from chat" in the README).');
  return clis
    .map((c) => {
      const head = `${c.name} (${c.kind}: ${c.command}) in ${c.allowedDirs.join(', ')}`;
      if (!c.sessions.length) return `${head}\n  ${dim('no sessions; a chat starts one with /cli use ' + c.name)}`;
      const lines = c.sessions.map((s) => {
        const state = s.state === 'running' ? green('running') : red('exited (/cli restart starts it again)');
        const busy = s.inFlight ? `, on a message${s.inFlight > 1 ? ` (+${s.inFlight - 1} waiting)` : ''}` : '';
        const chats = s.boundChats.length
          ? s.boundChats.map((b) => `${b.sessionKey} (bound by ${b.boundBy})`).join(', ')
          : dim('no chat bound');
        return `  ${s.name}: ${state}${busy}${s.workDir ? ` in ${s.workDir}` : ''}; ${chats}`;
      });
      return [head, ...lines].join('\n');
    })
    .join('\n');
}
