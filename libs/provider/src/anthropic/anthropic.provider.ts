import Anthropic from '@anthropic-ai/sdk';
import type { MessageCreateParamsBase, RawMessageStreamEvent, StopReason } from '@anthropic-ai/sdk/resources/messages/messages';
import {
  BackendOptions,
  ChatRequest,
  ChatResponse,
  ChatStreamEvent,
  emptyUsage,
  ModelProvider,
  ProbeResult,
  ToolCall,
  Usage,
} from '../model-provider.port';
import { parseRateLimitHeaders } from '../http/rate-limit.headers';
import { finishOf, systemOf, toolOf, turnsOf, usageOf } from './anthropic.wire';
import { nodeFetch } from '../http/node-fetch.transport';
import { gatedFetchOptions } from '../http/gated-send';
import { classifySdkFailure, probeFailure } from '../http/sdk-errors';

/** `maxTokens` is required by the Messages API: 4096 when not configured. */
export type AnthropicOptions = BackendOptions;

const DEFAULT_MAX_TOKENS = 4096;

/** Anthropic's native Messages API: system prompt apart, tool_use blocks, streaming events, cache usage. */
export class AnthropicProvider implements ModelProvider {
  readonly kind: string = 'anthropic';
  private readonly client: Anthropic;

  constructor(private readonly options: AnthropicOptions) {
    this.client = new Anthropic({
      baseURL: options.baseUrl || 'https://api.anthropic.com',
      // An explicit key keeps the SDK from searching the machine for other credentials.
      apiKey: options.apiKey || 'not-set',
      maxRetries: 0,
      timeout: 24 * 3600 * 1000,
      defaultHeaders: options.headers,
      fetch: nodeFetch,
    });
  }

  get model(): string {
    return this.options.model;
  }

  private params(request: ChatRequest): MessageCreateParamsBase {
    const temperature = request.temperature ?? this.options.temperature;
    const system = systemOf(request.messages);
    return {
      model: this.options.model,
      max_tokens: request.maxTokens ?? this.options.maxTokens ?? DEFAULT_MAX_TOKENS,
      messages: turnsOf(request.messages),
      ...(system ? { system } : {}),
      ...(request.tools?.length ? { tools: request.tools.map(toolOf) } : {}),
      // Anthropic's range is 0..1; the neutral one is OpenAI's 0..2.
      ...(temperature !== undefined ? { temperature: Math.min(1, temperature) } : {}),
    };
  }

  async chat(request: ChatRequest): Promise<ChatResponse> {
    try {
      const { data: msg, response } = await this.client.messages
        .create({ ...this.params(request), stream: false }, { signal: request.signal, fetchOptions: gatedFetchOptions(request.gate) })
        .withResponse();
      let content = '';
      const toolCalls: ToolCall[] = [];
      for (const block of msg.content) {
        if (block.type === 'text') content += block.text;
        else if (block.type === 'tool_use')
          toolCalls.push({ id: block.id, name: block.name, arguments: JSON.stringify(block.input ?? {}) });
      }
      return {
        content,
        toolCalls,
        usage: usageOf(msg.usage),
        finishReason: finishOf(msg.stop_reason),
        model: msg.model || this.options.model,
        rateLimit: parseRateLimitHeaders(response.headers),
      };
    } catch (e) {
      throw classifySdkFailure(e, request.signal);
    }
  }

  async *chatStream(request: ChatRequest): AsyncIterable<ChatStreamEvent> {
    let stream: AsyncIterable<RawMessageStreamEvent>;
    let headers: Headers;
    try {
      ({
        data: stream,
        response: { headers },
      } = await this.client.messages
        .create({ ...this.params(request), stream: true }, { signal: request.signal, fetchOptions: gatedFetchOptions(request.gate) })
        .withResponse());
    } catch (e) {
      throw classifySdkFailure(e, request.signal);
    }
    let content = '';
    let usage: Usage = emptyUsage();
    let stop: StopReason | null = null;
    let model = this.options.model;
    const tools = new Map<number, ToolCall>();
    const toolCalls: ToolCall[] = [];
    try {
      for await (const event of stream) {
        switch (event.type) {
          case 'message_start':
            usage = usageOf(event.message.usage);
            model = event.message.model || model;
            break;
          case 'content_block_start':
            if (event.content_block.type === 'tool_use') {
              tools.set(event.index, { id: event.content_block.id, name: event.content_block.name, arguments: '' });
            }
            break;
          case 'content_block_delta':
            if (event.delta.type === 'text_delta' && event.delta.text) {
              content += event.delta.text;
              yield { type: 'text', text: event.delta.text };
            } else if (event.delta.type === 'input_json_delta') {
              const call = tools.get(event.index);
              if (call) call.arguments += event.delta.partial_json;
            }
            break;
          case 'content_block_stop': {
            const call = tools.get(event.index);
            if (call) {
              const done = { ...call, arguments: call.arguments || '{}' };
              toolCalls.push(done);
              yield { type: 'tool_call', call: done };
            }
            break;
          }
          case 'message_delta': {
            stop = event.delta.stop_reason ?? stop;
            // message_delta usage is cumulative; input counts arrive here only on some deployments.
            const u = event.usage;
            usage = usageOf({
              input_tokens: u.input_tokens ?? usage.inputTokens - usage.cachedInputTokens - (usage.cacheWriteInputTokens ?? 0),
              output_tokens: u.output_tokens,
              cache_read_input_tokens: u.cache_read_input_tokens ?? usage.cachedInputTokens,
              cache_creation_input_tokens: u.cache_creation_input_tokens ?? usage.cacheWriteInputTokens ?? 0,
            });
            break;
          }
          case 'message_stop':
            break;
        }
      }
    } catch (e) {
      throw classifySdkFailure(e, request.signal);
    }
    const finishReason = finishOf(stop);
    yield {
      type: 'done',
      response: {
        content,
        toolCalls,
        usage,
        finishReason: toolCalls.length && finishReason === 'stop' ? 'tool_calls' : finishReason,
        model,
        rateLimit: parseRateLimitHeaders(headers),
      },
    };
  }

  async probe(signal: AbortSignal): Promise<ProbeResult> {
    const started = performance.now();
    const latencyMs = () => Math.round(performance.now() - started);
    try {
      const { response } = await this.client.models.list({ limit: 1 }, { signal }).withResponse();
      return { reachable: true, status: response.status, keyRejected: false, latencyMs: latencyMs() };
    } catch (e) {
      return probeFailure(e, latencyMs());
    }
  }
}
