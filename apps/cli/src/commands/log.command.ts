import { Command } from 'commander';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { ConversationLogService } from '@nestclaw/channel';
import { finish, messageOf, note, red } from '../cli-output';
import { withServices } from './pairing.context';

const instant = (s: string) => {
  const d = new Date(s);
  if (Number.isNaN(d.getTime())) throw new Error(`not a date: ${s} (use ISO 8601, e.g. 2026-11-22 or 2026-11-22T10:00:00Z)`);
  return d;
};

/** `nestclaw log export --from --to`: the conversation log as JSONL. */
export function logCommand(): Command {
  const log = new Command('log').description('the conversation log (every message in and out, refused ones included)');
  log
    .command('export')
    .description('write the log as JSONL, oldest first')
    .option('--from <date>', 'start (inclusive, ISO 8601)', '1970-01-01')
    .option('--to <date>', 'end (exclusive, ISO 8601; default: now)')
    .option('-o, --out <file>', 'write to a file instead of stdout')
    .action(async (opts: { from: string; to?: string; out?: string }) => {
      try {
        const from = instant(opts.from);
        const to = opts.to ? instant(opts.to) : new Date(Date.now() + 1000);
        const sink = opts.out ? createWriteStream(opts.out) : process.stdout;
        let n = 0;
        await withServices(async (app) => {
          for await (const entry of app.get(ConversationLogService).export(from, to)) {
            if (!sink.write(`${JSON.stringify(entry)}\n`)) await once(sink, 'drain');
            n++;
          }
        });
        if (opts.out) await new Promise((r) => (sink as ReturnType<typeof createWriteStream>).end(r));
        note(`${n} entr${n === 1 ? 'y' : 'ies'} exported`);
        finish(0);
      } catch (e) {
        note(red(`✖ ${messageOf(e)}`));
        finish(1);
      }
    });
  return log;
}
