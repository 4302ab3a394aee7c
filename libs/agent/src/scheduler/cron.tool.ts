import { Injectable } from '@nestjs/common';
import { z } from 'zod';
import { isNestclawError } from '@nestclaw/common';
import { Tool, ToolError, ToolRuntime } from '@nestclaw/tool';
import { CronService } from './cron.service';

const input = z.object({
  action: z.enum(['add', 'list', 'remove']),
  schedule: z
    .union([
      z.object({ at: z.string().describe('ISO-8601 time with offset') }),
      z.object({ every: z.string().describe('interval, e.g. "30m", "1d"') }),
      z.object({ cron: z.string(), tz: z.string().optional() }),
    ])
    .optional()
    .describe('for add'),
  message: z.string().optional().describe('for add: what you will be asked when it fires'),
  id: z.string().optional().describe('for remove'),
});

/**
 * Lets the agent schedule work ("remind me at 9 tomorrow"). Jobs made here run in this
 * conversation; the tool only sees and removes jobs of this conversation. Put `cron` in
 * tools.approval.required to have each change approved.
 */
@Injectable()
export class CronTool implements Tool<typeof input> {
  readonly name = 'cron';
  readonly description = 'Schedule a message to yourself in this conversation (add/list/remove).';
  readonly input = input;

  constructor(private readonly cron: CronService) {}

  async execute(ctx: ToolRuntime, a: z.output<typeof input>): Promise<string> {
    try {
      switch (a.action) {
        case 'add': {
          if (!a.schedule || !a.message) throw new ToolError('add needs schedule and message');
          const job = await this.cron.addFromSession(ctx, a.schedule, a.message);
          return JSON.stringify({ added: { id: job.id, nextRunAt: job.nextRunAt, schedule: job.schedule } });
        }
        case 'list': {
          const jobs = await this.cron.listInSession(ctx.sessionId);
          return JSON.stringify({
            jobs: jobs.map((j) => ({ id: j.id, schedule: j.schedule, message: j.message, nextRunAt: j.nextRunAt, enabled: j.enabled })),
          });
        }
        case 'remove':
          if (!a.id) throw new ToolError('remove needs id');
          await this.cron.removeInSession(a.id, ctx.sessionId);
          return JSON.stringify({ removed: a.id });
      }
    } catch (e) {
      if (isNestclawError(e)) throw new ToolError(e.message);
      throw e;
    }
  }
}
