import { Injectable } from '@nestjs/common';
import { CronService, ownerOfPerson, ScheduledJob, SchedulerClock } from '@nestclaw/agent';
import { isNestclawError, parseDuration } from '@nestclaw/common';
import { TurnMemory } from '@nestclaw/memory';
import type { InboundMessage } from '../channel.port';
import type { Routed } from '../routing/message-router';

const usage = (p: string) =>
  [
    `${p}cron — your scheduled jobs`,
    `${p}cron add in 10m <message> | at <ISO-8601 time> <message> | every 1d <message> | cron <5 fields> [tz=Zone] <message>`,
    `${p}cron rm <id>`,
  ].join('\n');

/**
 * `/cron` in a chat: a person lists and removes their own jobs (the owner, or a sender linked as
 * `owner`, sees all), and adds one that runs in this conversation and answers in this chat.
 */
@Injectable()
export class CronCommands {
  constructor(
    private readonly cron: CronService,
    private readonly turns: TurnMemory,
    private readonly clock: SchedulerClock,
  ) {}

  async run(m: InboundMessage, routed: Routed, sessionId: string, prefix: string): Promise<string> {
    const person = this.turns.personOf({ channel: m.channel, endpointId: m.sender.id });
    if (!person) return 'I cannot tell who you are here, so I cannot keep jobs for you.';
    const owner = ownerOfPerson(person);
    // The text after "/cron", spacing kept (a message may hold several spaces or line breaks).
    const rest = m.text.trim().replace(/^\S+\s*/, '');
    const [verb = ''] = rest.split(/\s+/, 1);
    const after = rest.slice(verb.length).trim();
    try {
      switch (verb.toLowerCase()) {
        case '':
        case 'list':
          return listing(await this.cron.list(owner), prefix);
        case 'rm':
        case 'remove':
          if (!after) return usage(prefix);
          await this.cron.remove(after.split(/\s+/)[0], owner);
          return `Removed job ${after.split(/\s+/)[0]}.`;
        case 'add': {
          const parsed = this.parseAdd(after);
          if (!parsed) return usage(prefix);
          const job = await this.cron.add(
            { schedule: parsed.schedule, message: parsed.message, agentId: routed.agentId, sessionId },
            owner,
            {
              channel: m.channel,
              chatId: m.chat.id,
              ...(m.threadId ? { threadId: m.threadId } : {}),
            },
          );
          return `Scheduled job ${job.id}; next run ${job.nextRunAt}.`;
        }
        default:
          return usage(prefix);
      }
    } catch (e) {
      if (isNestclawError(e)) return e.message;
      throw e;
    }
  }

  private parseAdd(text: string): { schedule: unknown; message: string } | undefined {
    const words = text.split(/\s+/);
    const kind = words[0]?.toLowerCase();
    const tail = (n: number) => text.split(/\s+/).slice(n).join(' ');
    if ((kind === 'in' || kind === 'at' || kind === 'every') && words.length >= 3) {
      if (kind === 'every') return { schedule: { every: words[1] }, message: tail(2) };
      if (kind === 'at') return { schedule: { at: words[1] }, message: tail(2) };
      let ms: number;
      try {
        ms = parseDuration(words[1]);
      } catch {
        return undefined;
      }
      return { schedule: { at: new Date(this.clock.now().getTime() + ms).toISOString() }, message: tail(2) };
    }
    if (kind === 'cron' && words.length >= 7) {
      const tz = words[6].startsWith('tz=') ? words[6].slice(3) : undefined;
      const message = tail(tz ? 7 : 6);
      if (!message) return undefined;
      return { schedule: { cron: words.slice(1, 6).join(' '), ...(tz ? { tz } : {}) }, message };
    }
    return undefined;
  }
}

function listing(jobs: ScheduledJob[], prefix: string): string {
  if (jobs.length === 0) return `No scheduled jobs. ${prefix}cron add in 10m <message> makes one.`;
  return jobs
    .map((j) => {
      const text = j.message.length > 60 ? `${j.message.slice(0, 59)}…` : j.message;
      return `${j.id} — ${JSON.stringify(j.schedule)} — next ${j.nextRunAt ?? 'never'}${j.enabled ? '' : ' (done)'}\n  ${text}`;
    })
    .join('\n');
}
