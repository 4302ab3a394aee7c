import OpenAI from 'openai';
import type {
  ChatCompletionChunk,
  ChatCompletionCreateParamsBase,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import {
  BackendOptions,
  ChatMessage,
  ChatRequest,
  ChatResponse,
  ChatStreamEvent,
  emptyUsage,
  FinishReason,
  ModelProvider,
  ProbeResult,
  ToolCall,
  ToolDefinition,
  Usage,
} from '../model-provider.port';
import { parseRateLimitHeaders } from '../http/rate-limit.headers';
import { OPENAI_COMPATIBLE_PRESETS, OpenAiPreset } from './openai-presets';
import { nodeFetch } from '../http/node-fetch.transport';
import { gatedFetchOptions } from '../http/gated-send';
import { classifySdkFailure, probeFailure } from '../http/sdk-errors';

export interface OpenAiCompatibleOptions extends BackendOptions {
  baseUrl: string;
  /** Quirks of the service (defaults: the generic `openai-compatible` preset). */
  preset?: OpenAiPreset;
}

function toWire(m: ChatMessage): ChatCompletionMessageParam {
  switch (m.role) {
    case 'assistant':
      return m.toolCalls?.length
        ? {
            role: 'assistant',
            content: m.content || null,
            tool_calls: m.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })),
          }
        : { role: 'assistant', content: m.content };
    case 'tool':
      return { role: 'tool', content: m.content, tool_call_id: m.toolCallId };
    default:
      return { role: m.role, content: m.content };
  }
}

const toWireTool = (t: ToolDefinition): ChatCompletionTool => ({
  type: 'function',
  function: { name: t.name, description: t.description, parameters: t.parameters },
});

function finish(reason: string | null | undefined): FinishReason {
  switch (reason) {
    case 'stop':
    case 'tool_calls':
    case 'length':
    case 'content_filter':
      return reason;
    case 'function_call':
      return 'tool_calls';
    default:
      return reason ? 'other' : 'stop';
  }
}

function usageOf(u: OpenAI.CompletionUsage | null | undefined): Usage {
  return {
    inputTokens: u?.prompt_tokens ?? 0,
    outputTokens: u?.completion_tokens ?? 0,
    cachedInputTokens: u?.prompt_tokens_details?.cached_tokens ?? 0,
  };
}

/** Usage on a stream chunk: standard `usage`, Moonshot's per-choice `usage`, or Groq's `x_groq.usage`. */
function chunkUsage(chunk: ChatCompletionChunk): OpenAI.CompletionUsage | undefined {
  const loose = chunk as ChatCompletionChunk & { x_groq?: { usage?: OpenAI.CompletionUsage } };
  const inChoice = (chunk.choices?.[0] as { usage?: OpenAI.CompletionUsage } | undefined)?.usage;
  return chunk.usage ?? inChoice ?? loose.x_groq?.usage ?? undefined;
}

/**
 * Any server speaking OpenAI's Chat Completions API (OpenAI, DeepSeek, Moonshot, Qwen, Groq,
 * vLLM, LM Studio, …). The SDK's own retries are off: the ReliableProvider is the only retry layer.
 */
export class OpenAiCompatibleProvider implements ModelProvider {
  readonly kind: string = 'openai-compatible';
  private readonly client: OpenAI;
  private readonly preset: OpenAiPreset;

  constructor(private readonly options: OpenAiCompatibleOptions) {
    this.preset = options.preset ?? OPENAI_COMPATIBLE_PRESETS['openai-compatible'];
    this.client = new OpenAI({
      baseURL: options.baseUrl,
      // Local servers (vLLM, LM Studio, test fakes) accept any key; the SDK insists on one.
      apiKey: options.apiKey || 'not-set',
      maxRetries: 0,
      timeout: 24 * 3600 * 1000,
      fetch: nodeFetch,
      defaultHeaders: { ...this.preset.headers, ...options.headers },
    });
  }

  get model(): string {
    return this.options.model;
  }

  private params(request: ChatRequest): ChatCompletionCreateParamsBase {
    const temperature = request.temperature ?? this.options.temperature;
    const maxTokens = request.maxTokens ?? this.options.maxTokens;
    return {
      model: this.options.model,
      messages: request.messages.map(toWire),
      ...(request.tools?.length ? { tools: request.tools.map(toWireTool) } : {}),
      ...(temperature !== undefined ? { temperature } : {}),
      ...(maxTokens ? { [this.preset.maxTokensParam]: maxTokens } : {}),
    };
  }

  async chat(request: ChatRequest): Promise<ChatResponse> {
    try {
      const { data: res, response } = await this.client.chat.completions
        .create({ ...this.params(request), stream: false }, requestOptions(request))
        .withResponse();
      const choice = res.choices[0];
      const toolCalls: ToolCall[] = (choice?.message.tool_calls ?? [])
        .filter((c) => c.type === 'function')
        .map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments || '{}' }));
      return {
        content: choice?.message.content ?? '',
        toolCalls,
        usage: usageOf(res.usage),
        finishReason: finish(choice?.finish_reason),
        model: res.model || this.options.model,
        rateLimit: parseRateLimitHeaders(response.headers),
      };
    } catch (e) {
      throw classifySdkFailure(e, request.signal);
    }
  }

  async *chatStream(request: ChatRequest): AsyncIterable<ChatStreamEvent> {
    let stream: AsyncIterable<ChatCompletionChunk>;
    let headers: Headers;
    try {
      const params = { ...this.params(request), stream: true as const };
      if (this.preset.streamUsage) Object.assign(params, { stream_options: { include_usage: true } });
      ({
        data: stream,
        response: { headers },
      } = await this.client.chat.completions.create(params, requestOptions(request)).withResponse());
    } catch (e) {
      throw classifySdkFailure(e, request.signal);
    }
    let content = '';
    let usage: Usage = emptyUsage();
    let finishReason: FinishReason = 'stop';
    let model = this.options.model;
    const partial = new Map<number, ToolCall>();
    try {
      for await (const chunk of stream) {
        const u = chunkUsage(chunk);
        if (u) usage = usageOf(u);
        if (chunk.model) model = chunk.model;
        const choice = chunk.choices?.[0];
        if (!choice) continue;
        const text = choice.delta?.content;
        if (text) {
          content += text;
          yield { type: 'text', text };
        }
        for (const d of choice.delta?.tool_calls ?? []) {
          const call = partial.get(d.index) ?? { id: '', name: '', arguments: '' };
          if (d.id) call.id = d.id;
          if (d.function?.name) call.name += d.function.name;
          if (d.function?.arguments) call.arguments += d.function.arguments;
          partial.set(d.index, call);
        }
        if (choice.finish_reason) finishReason = finish(choice.finish_reason);
      }
    } catch (e) {
      throw classifySdkFailure(e, request.signal);
    }
    const toolCalls = [...partial.entries()]
      .sort(([a], [b]) => a - b)
      .map(([i, c]) => ({ ...c, id: c.id || `call_${i}`, arguments: c.arguments || '{}' }));
    for (const call of toolCalls) yield { type: 'tool_call', call };
    yield {
      type: 'done',
      response: {
        content,
        toolCalls,
        usage,
        finishReason: toolCalls.length ? 'tool_calls' : finishReason,
        model,
        rateLimit: parseRateLimitHeaders(headers),
      },
    };
  }

  /** Lists the server's models: reachability and key check without spending tokens. */
  async probe(signal: AbortSignal): Promise<ProbeResult> {
    const started = performance.now();
    const latencyMs = () => Math.round(performance.now() - started);
    try {
      const { response } = await this.client.models.list({ signal }).withResponse();
      return { reachable: true, status: response.status, keyRejected: false, latencyMs: latencyMs() };
    } catch (e) {
      return probeFailure(e, latencyMs());
    }
  }
}

/** OpenAI's `X-Client-Request-Id` ties each request to our ledger row (compatible servers ignore it). */
function requestOptions(request: ChatRequest) {
  return { signal: request.signal, fetchOptions: gatedFetchOptions(request.gate, 'X-Client-Request-Id') };
}
