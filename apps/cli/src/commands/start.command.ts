import { Command } from 'commander';
import { finish, note } from '../cli-output';

/**
 * Listed for `--help` only: bin/nestclaw.js hands `start` straight to the gateway bundle, which
 * parses these options itself, so the CLI (and its imports) never load in the server process.
 */
export function startCommand(): Command {
  return new Command('start')
    .description('start the gateway: HTTP + SSE, WebSocket /ws and the OpenAI-compatible API')
    .option('-p, --port <port>', 'listen on this port (default server.port = 3000; 0 picks a free one)')
    .option('--host <host>', 'bind address (default server.host = 127.0.0.1)')
    .action(() => {
      note('`start` is run by the nestclaw launcher: use `nestclaw start` (or `npm start`).');
      finish(1);
    });
}
