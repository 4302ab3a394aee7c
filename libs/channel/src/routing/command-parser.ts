export const COMMANDS = [
  'new',
  'stop',
  'status',
  'whoami',
  'help',
  'approve',
  'deny',
  'compact',
  'remember',
  'forget',
  'cron',
  'cli',
  'keys',
] as const;
export type CommandName = (typeof COMMANDS)[number];

export interface ParsedCommand {
  name: CommandName;
  args: string[];
  /** The prefix it was written with (`/` by default), for usage lines in the reply. */
  prefix: string;
}

/** `/status`, `/status@MyBot`, `/approve abc`; unknown commands are ordinary text for the model. */
export function parseCommand(text: string, prefix: string): ParsedCommand | undefined {
  const t = text.trim();
  if (!t.startsWith(prefix)) return undefined;
  const [head, ...args] = t.slice(prefix.length).split(/\s+/);
  const name = head.replace(/@\S+$/, '').toLowerCase();
  return (COMMANDS as readonly string[]).includes(name) ? { name: name as CommandName, args, prefix } : undefined;
}

/** Every command but `/new` and `/compact` answers at once: `/stop` must not wait behind the run it stops. */
export const isImmediate = (c: ParsedCommand) => c.name !== 'new' && c.name !== 'compact';
