import OpenAI, { APIError, APIUserAbortError } from 'openai';
import type {
  ChatCompletionChunk,
  ChatCompletionCreateParamsBase,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import {
  ChatMessage,
  ChatRequest,
  ChatResponse,
  ChatStreamEvent,
  FinishReason,
  ModelProvider,
  ToolCall,
  ToolDefinition,
  Usage,
} from '../model-provider.port';
import { classifyHttpFailure, ProviderAttemptError } from '../provider.errors';

export interface OpenAiCompatibleOptions {
  baseUrl: string;
  apiKey?: string;
  model: string;
  temperature?: number;
  maxTokens?: number;
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

/** Turns SDK errors into classified attempt errors the ReliableProvider can act on. */
function classify(e: unknown, signal?: AbortSignal): never {
  if (e instanceof APIUserAbortError || signal?.aborted) {
    throw new ProviderAttemptError('cancelled', undefined, 'request aborted');
  }
  if (e instanceof APIError) {
    throw classifyHttpFailure(e.status, e.message, e.headers?.get?.('retry-after'));
  }
  throw classifyHttpFailure(undefined, (e as Error)?.message ?? String(e));
}

/**
 * Any server speaking OpenAI's Chat Completions API (OpenAI, DeepSeek, Moonshot, Qwen, Groq,
 * vLLM, LM Studio, …). The SDK's own retries are off: the ReliableProvider is the only retry layer.
 */
export class OpenAiCompatibleProvider implements ModelProvider {
  readonly kind: string = 'openai-compatible';
  private readonly client: OpenAI;

  constructor(private readonly options: OpenAiCompatibleOptions) {
    this.client = new OpenAI({
      baseURL: options.baseUrl,
      // Local servers (vLLM, LM Studio, test fakes) accept any key; the SDK insists on one.
      apiKey: options.apiKey || 'not-set',
      maxRetries: 0,
      timeout: 24 * 3600 * 1000,
    });
  }

  get model(): string {
    return this.options.model;
  }

  private params(request: ChatRequest): ChatCompletionCreateParamsBase {
    return {
      model: this.options.model,
      messages: request.messages.map(toWire),
      ...(request.tools?.length ? { tools: request.tools.map(toWireTool) } : {}),
      ...((request.temperature ?? this.options.temperature) !== undefined
        ? { temperature: request.temperature ?? this.options.temperature }
        : {}),
      ...((request.maxTokens ?? this.options.maxTokens) ? { max_tokens: request.maxTokens ?? this.options.maxTokens } : {}),
    };
  }

  async chat(request: ChatRequest): Promise<ChatResponse> {
    try {
      const res = await this.client.chat.completions.create({ ...this.params(request), stream: false }, { signal: request.signal });
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
      };
    } catch (e) {
      classify(e, request.signal);
    }
  }

  async *chatStream(request: ChatRequest): AsyncIterable<ChatStreamEvent> {
    let stream: AsyncIterable<ChatCompletionChunk>;
    try {
      stream = await this.client.chat.completions.create(
        { ...this.params(request), stream: true, stream_options: { include_usage: true } },
        { signal: request.signal },
      );
    } catch (e) {
      classify(e, request.signal);
    }
    let content = '';
    let usage: Usage = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 };
    let finishReason: FinishReason = 'stop';
    let model = this.options.model;
    const partial = new Map<number, ToolCall>();
    try {
      for await (const chunk of stream) {
        if (chunk.usage) usage = usageOf(chunk.usage);
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
      classify(e, request.signal);
    }
    // The SDK ends an aborted stream quietly; a cut-short reply must not pass as complete.
    if (request.signal?.aborted) throw new ProviderAttemptError('cancelled', undefined, 'request aborted');
    const toolCalls = [...partial.entries()]
      .sort(([a], [b]) => a - b)
      .map(([i, c]) => ({ ...c, id: c.id || `call_${i}`, arguments: c.arguments || '{}' }));
    for (const call of toolCalls) yield { type: 'tool_call', call };
    yield { type: 'done', response: { content, toolCalls, usage, finishReason: toolCalls.length ? 'tool_calls' : finishReason, model } };
  }
}
