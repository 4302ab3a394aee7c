import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { z } from 'zod';
import { NestclawError } from '@nestclaw/common';
import { AgentService, SESSION_ID_PATTERN, SessionsService } from '@nestclaw/agent';
import { RequireScope } from '../auth/require-scope.decorator';
import { ZodPipe } from '../http/zod-validation.pipe';

const listQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(50),
  before: z.iso.datetime({ offset: true }).optional(),
  /** An id prefix, or words from the title or the conversation (case-insensitive, any language). */
  q: z.string().trim().min(1).max(200).optional(),
  channel: z.string().min(1).max(64).optional(),
  agent: z.string().min(1).max(64).optional(),
});
const messagesQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(1000).default(200),
    after: z.coerce.number().int().min(0).optional(),
    /** The page just before this seq, or `end` for the newest page. */
    before: z.union([z.literal('end'), z.coerce.number().int().min(1)]).optional(),
  })
  .refine((q) => q.after === undefined || q.before === undefined, 'give after or before, not both');

@RequireScope('admin')
@Controller('v1/sessions')
export class SessionsController {
  constructor(
    private readonly sessions: SessionsService,
    private readonly agent: AgentService,
  ) {}

  /** Most recently active first; page with `?before=<updatedAt of the last one>`; search with `q`, filter by `channel` and `agent`. */
  @Get()
  async list(@Query(new ZodPipe(listQuery)) q: z.output<typeof listQuery>) {
    const filter = { query: q.q, channel: q.channel, agentId: q.agent };
    return { sessions: await this.sessions.list(q.limit, q.before ? new Date(q.before) : undefined, filter) };
  }

  /**
   * The transcript in order, including tool calls and results: page forward with `?after=<seq>`, or
   * back from the newest with `?before=end`, then `?before=<first seq seen>`.
   */
  @Get(':sessionId/messages')
  async messages(@Param('sessionId') sessionId: string, @Query(new ZodPipe(messagesQuery)) q: z.output<typeof messagesQuery>) {
    const page = q.before !== undefined ? { before: q.before } : { after: q.after ?? 0 };
    return { sessionId, messages: await this.sessions.transcript(sessionId, page, q.limit) };
  }

  /**
   * Stops the session's running turn on whichever replica runs it (issue 24), within a second; 202
   * whether or not one runs (a cancel for a turn that already ended does nothing).
   */
  @Post(':sessionId/cancel')
  @HttpCode(202)
  async cancel(@Param('sessionId') sessionId: string) {
    if (!SESSION_ID_PATTERN.test(sessionId)) throw new NestclawError('session_not_found', `Session "${sessionId}" does not exist`);
    await this.agent.cancel({ sessionId });
    return { sessionId, cancel: 'sent' };
  }

  /** Summarises the session's older messages now (after any turn already running in it). */
  @Post(':sessionId/compact')
  @HttpCode(200)
  async compact(@Param('sessionId') sessionId: string) {
    if (!SESSION_ID_PATTERN.test(sessionId)) throw new NestclawError('session_not_found', `Session "${sessionId}" does not exist`);
    return this.agent.compact(sessionId);
  }
}
