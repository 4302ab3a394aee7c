import { Readable } from 'node:stream';
import { Body, Controller, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { ConversationLogService } from '@nestclaw/channel';
import { RequireScope } from '../auth/require-scope.decorator';
import { ZodPipe } from '../http/zod-validation.pipe';

const checkpointBody = z.object({ summary: z.string().max(10_000).optional() }).prefault({});
const exportQuery = z.object({ from: z.iso.datetime({ offset: true }).optional(), to: z.iso.datetime({ offset: true }).optional() });

/** The conversation log (every message in and out, refused ones included), checkpoints and recovery. */
@Controller('v1')
@RequireScope('admin')
export class ConversationLogController {
  constructor(private readonly log: ConversationLogService) {}

  /** What happened since the session's last checkpoint, with a text block for re-injection. */
  @Get('sessions/:sessionId/recover')
  recover(@Param('sessionId') sessionId: string) {
    return this.log.recover(sessionId);
  }

  @Post('sessions/:sessionId/checkpoints')
  @HttpCode(201)
  checkpoint(@Param('sessionId') sessionId: string, @Body(new ZodPipe(checkpointBody)) body: z.output<typeof checkpointBody>) {
    return this.log.createCheckpoint(sessionId, body.summary);
  }

  /** JSONL, oldest first. */
  @Get('log/export')
  async export(@Query(new ZodPipe(exportQuery)) q: z.output<typeof exportQuery>, @Res() reply: FastifyReply) {
    const from = q.from ? new Date(q.from) : new Date(0);
    const to = q.to ? new Date(q.to) : new Date(Date.now() + 1000);
    // Streamed batch by batch: a wide range must not be held in memory whole.
    const entries = this.log.export(from, to);
    const lines = Readable.from(
      (async function* () {
        for await (const e of entries) yield `${JSON.stringify(e)}\n`;
      })(),
    );
    return reply.header('content-type', 'application/x-ndjson; charset=utf-8').send(lines);
  }
}
