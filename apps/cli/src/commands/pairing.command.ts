import { Command } from 'commander';
import { ChannelAccessService } from '@nestclaw/security';
import { finish, messageOf, note, out, red } from '../cli-output';
import { withServices } from './pairing.context';

/** `nestclaw pairing list|approve`: strangers who asked a chat channel for access. */
export function pairingCommand(): Command {
  const pairing = new Command('pairing').description('approve people who asked a chat channel (Telegram, Discord) for access');
  pairing
    .command('list', { isDefault: true })
    .description('pending pairing codes')
    .argument('[channel]', 'only this channel')
    .action(async (channel?: string) => finish(await run(async (access) => list(access, channel))));
  pairing
    .command('approve')
    .description('add the sender behind a pairing code to the channel allowlist')
    .argument('<channel>', 'telegram, discord or slack')
    .argument('<code>', 'the 8-character code the bot sent them')
    .action(async (channel: string, code: string) => finish(await run(async (access) => approve(access, channel, code))));
  return pairing;
}

async function run(fn: (access: ChannelAccessService) => Promise<number>): Promise<number> {
  try {
    return await withServices((app) => fn(app.get(ChannelAccessService)));
  } catch (e) {
    note(red(`✖ ${messageOf(e)}`));
    return 1;
  }
}

async function list(access: ChannelAccessService, channel?: string): Promise<number> {
  const pending = await access.pending(channel);
  if (pending.length === 0) {
    out('no pending pairing requests');
    return 0;
  }
  for (const p of pending) out(`${p.channel}\t${p.code}\t${p.senderId}\t${p.senderName ?? ''}\texpires ${p.expiresAt}`);
  return 0;
}

async function approve(access: ChannelAccessService, channel: string, code: string): Promise<number> {
  const r = await access.approve(channel, code, 'owner (cli)');
  out(`approved ${r.senderName ?? r.senderId} (${r.channel} id ${r.senderId}); they can chat now`);
  return 0;
}
