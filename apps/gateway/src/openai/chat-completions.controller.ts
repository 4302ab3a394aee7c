import { Body, Controller, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { NestclawError } from '@nestclaw/common';
import { AgentService, SESSION_ID_PATTERN } from '@nestclaw/agent';
import type { Principal } from '@nestclaw/security';
import { CurrentPrincipal } from '../auth/principal.decorator';
import { sessionScopeOf } from '../auth/principal-scope';
import type { ChatMessage } from '@nestclaw/provider';
import { toErrorResponse } from '../errors/error-body';
import { abortOnDisconnect } from '../http/abort-on-disconnect';
import { SseStream } from '../http/sse-stream';
import { ZodPipe } from '../http/zod-validation.pipe';
import { ChatCompletionsDto, chatCompletionsSchema, textOf } from './chat-completions.dto';

/**
 * OpenAI-compatible Chat Completions, so existing OpenAI clients can talk to nestclaw.
 * With a session (`x-nestclaw-session` header or `user`), nestclaw keeps the history and only the
 * last user message is used; without one, the client's earlier messages are the context of a
 * fresh session. Client-side `tools` are ignored: nestclaw runs its own tools.
 */
@Controller('v1/chat/completions')
export class ChatCompletionsController {
  constructor(private readonly agent: AgentService) {}

  @Post()
  async create(
    @Body(new ZodPipe(chatCompletionsSchema)) dto: ChatCompletionsDto,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
    @CurrentPrincipal() principal: Principal,
  ): Promise<void> {
    const last = dto.messages[dto.messages.length - 1];
    const message = textOf(last.content).trim();
    if (last.role !== 'user' || !message) {
      throw new NestclawError('invalid_request', 'Invalid request body: messages: the last message must be a non-empty user message');
    }
    const header = req.headers['x-nestclaw-session'];
    const fromHeader = Array.isArray(header) ? header[0] : header;
    const sessionId = fromHeader ?? dto.user;
    if (sessionId !== undefined && !SESSION_ID_PATTERN.test(sessionId)) {
      const field = fromHeader !== undefined ? 'x-nestclaw-session header' : 'user';
      throw new NestclawError('invalid_request', `Invalid session in ${field}: use 1-200 characters of letters, digits and :._@-`);
    }
    const context: ChatMessage[] = sessionId
      ? []
      : dto.messages.slice(0, -1).flatMap((m): ChatMessage[] => {
          const text = textOf(m.content);
          if (!text) return [];
          if (m.role === 'user') return [{ role: 'user', content: text }];
          if (m.role === 'assistant') return [{ role: 'assistant', content: text }];
          return [];
        });
    const agentId = dto.model.includes('/') ? dto.model.split('/')[1] : undefined;
    const input = {
      message,
      sessionId,
      agentId,
      channel: 'openai',
      endpointId: dto.user ?? req.ip,
      createSession: true,
      context,
      principalId: sessionScopeOf(principal),
    };
    const controller = abortOnDisconnect(reply);
    const created = Math.floor(Date.now() / 1000);

    if (!dto.stream) {
      const r = await this.agent.run(input, { signal: controller.signal });
      await reply
        .status(200)
        .header('x-nestclaw-session', r.sessionId)
        .send({
          id: `chatcmpl-${r.turnId}`,
          object: 'chat.completion',
          created,
          model: dto.model,
          choices: [{ index: 0, message: { role: 'assistant', content: r.reply, refusal: null }, logprobs: null, finish_reason: 'stop' }],
          usage: {
            prompt_tokens: r.usage.inputTokens,
            completion_tokens: r.usage.outputTokens,
            total_tokens: r.usage.inputTokens + r.usage.outputTokens,
          },
        });
      return;
    }

    let sse: SseStream | undefined;
    let id = 'chatcmpl-pending';
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
      JSON.stringify({
        id,
        object: 'chat.completion.chunk',
        created,
        model: dto.model,
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      });
    try {
      await this.agent.run(input, {
        signal: controller.signal,
        stream: true,
        onEvent: (e) => {
          if (e.type === 'started') {
            id = `chatcmpl-${e.turnId}`;
            reply.hijack();
            sse = new SseStream(reply.raw, { 'x-nestclaw-session': e.sessionId });
            sse.data(chunk({ role: 'assistant', content: '' }));
          } else if (e.type === 'token') {
            sse?.data(chunk({ content: e.text }));
          } else if (e.type === 'done') {
            sse?.data(chunk({}, 'stop'));
            if (dto.stream_options?.include_usage) {
              const u = e.usage;
              sse?.data(
                JSON.stringify({
                  id,
                  object: 'chat.completion.chunk',
                  created,
                  model: dto.model,
                  choices: [],
                  usage: { prompt_tokens: u.inputTokens, completion_tokens: u.outputTokens, total_tokens: u.inputTokens + u.outputTokens },
                }),
              );
            }
            sse?.data('[DONE]');
          }
        },
      });
    } catch (e) {
      if (!sse) throw e;
      sse.data(JSON.stringify(toErrorResponse(e).body));
    } finally {
      sse?.end();
    }
  }
}
