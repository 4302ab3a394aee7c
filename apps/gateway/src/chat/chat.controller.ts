import { Body, Controller, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiChat } from '@nestclaw/channel';
import type { Principal } from '@nestclaw/security';
import { CurrentPrincipal } from '../auth/principal.decorator';
import { sessionScopeOf } from '../auth/principal-scope';
import { toErrorResponse } from '../errors/error-body';
import { abortOnDisconnect } from '../http/abort-on-disconnect';
import { SseStream } from '../http/sse-stream';
import { ZodPipe } from '../http/zod-validation.pipe';
import { ChatRequestDto, chatRequestSchema } from './chat.dto';

@Controller('v1/chat')
export class ChatController {
  constructor(private readonly chats: ApiChat) {}

  /**
   * JSON by default; SSE with `"stream": true` or `Accept: text/event-stream`. The agent answers, or the
   * coding CLI the session is bound to (`/cli use <name>`; ApiChat routes it).
   */
  @Post()
  async chat(
    @Body(new ZodPipe(chatRequestSchema)) dto: ChatRequestDto,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
    @CurrentPrincipal() principal: Principal,
  ): Promise<void> {
    const stream = dto.stream ?? (req.headers.accept ?? '').includes('text/event-stream');
    const input = {
      message: dto.message,
      sessionId: dto.sessionId,
      agentId: dto.agentId,
      channel: stream ? 'sse' : 'http',
      endpointId: req.ip,
      principalId: sessionScopeOf(principal),
    };
    const controller = abortOnDisconnect(reply);
    if (!stream) {
      const result = await this.chats.run(input, principal, { signal: controller.signal });
      await reply.status(200).send({ sessionId: result.sessionId, reply: result.reply, usage: result.usage });
      return;
    }
    // The event stream opens once the turn has started, so setup errors (404 session, …) stay plain JSON.
    let sse: SseStream | undefined;
    const open = () => (sse ??= (reply.hijack(), new SseStream(reply.raw)));
    try {
      await this.chats.run(input, principal, {
        signal: controller.signal,
        stream: true,
        onEvent: (e) => {
          switch (e.type) {
            case 'started':
              return void open();
            case 'token':
              return open().event('token', { text: e.text });
            case 'tool_call':
              return open().event('tool_call', { id: e.id, name: e.name, input: e.input });
            case 'tool_result':
              return open().event('tool_result', { id: e.id, name: e.name, output: e.output, isError: e.isError });
            case 'approval_required': {
              // The event is the wire shape: every field but its type.
              const { type, ...approval } = e;
              return open().event(type, approval);
            }
            case 'done':
              return open().event('done', { sessionId: e.sessionId, reply: e.reply, usage: e.usage });
          }
        },
      });
    } catch (e) {
      if (!sse) throw e;
      sse.event('error', toErrorResponse(e).body.error);
    } finally {
      sse?.end();
    }
  }
}
