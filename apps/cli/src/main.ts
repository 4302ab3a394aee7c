import 'reflect-metadata';
import { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { packageRoot } from '@nestclaw/common';
import { messageOf, note } from './cli-output';
import { chatCommand } from './commands/chat.command';
import { doctorCommand } from './commands/doctor.command';
import { migrateCommand } from './commands/migrate.command';
import { startCommand } from './commands/start.command';
import { tokenCommand } from './commands/token.command';
import { logCommand } from './commands/log.command';
import { memoryCommand } from './commands/memory.command';
import { pairCommand } from './commands/pair.command';
import { pairingCommand } from './commands/pairing.command';
import { addTokenAdminCommands } from './commands/tokens.command';
import { agentCommand, skillsCommand } from './commands/agent-context.command';
import { cronCommand } from './commands/cron.command';
import { approvalsCommand } from './commands/approvals.command';
import { uiCommand } from './commands/ui.command';
import { cliCommand } from './commands/cli.command';
import { pluginsCommand } from './commands/plugins.command';

function version(): string {
  try {
    return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

const program = new Command('nestclaw')
  .description('Self-hosted AI assistant gateway on NestJS and PostgreSQL')
  .version(version())
  .option('-c, --config <path>', 'config file (default $NESTCLAW_CONFIG, else $NESTCLAW_HOME/config.yaml)')
  .configureHelp({ showGlobalOptions: true })
  .showHelpAfterError()
  // Before any command loads config: every lib reads the path from NESTCLAW_CONFIG.
  .hook('preAction', (cmd) => {
    const { config } = cmd.opts<{ config?: string }>();
    if (config) process.env.NESTCLAW_CONFIG = resolve(config);
  })
  .addCommand(startCommand())
  .addCommand(chatCommand())
  .addCommand(migrateCommand())
  .addCommand(doctorCommand())
  .addCommand(tokenCommand())
  .addCommand(pairingCommand())
  .addCommand(pairCommand())
  .addCommand(logCommand())
  .addCommand(agentCommand())
  .addCommand(skillsCommand())
  .addCommand(cronCommand())
  .addCommand(memoryCommand())
  .addCommand(approvalsCommand())
  .addCommand(uiCommand())
  .addCommand(cliCommand())
  .addCommand(pluginsCommand());
addTokenAdminCommands(program.commands.find((c) => c.name() === 'token')!);
// `nestclaw <command> --help` lists --config too (addCommand does not copy help settings).
for (const cmd of program.commands) cmd.configureHelp({ showGlobalOptions: true });

if (process.argv.length <= 2) {
  program.outputHelp();
} else {
  program.parseAsync(process.argv).catch((e: unknown) => {
    note(`nestclaw: ${messageOf(e)}`);
    process.exit(1);
  });
}
