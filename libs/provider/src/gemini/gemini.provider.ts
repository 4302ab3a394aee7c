import { randomUUID } from 'node:crypto';
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
import { ProviderAttemptError } from '../provider.errors';
import { httpRequest, probeUrl, readJson, readSseData } from '../http/http-client';
import { parseRateLimitHeaders } from '../http/rate-limit.headers';
import { finishOf, GeminiResponse, parseGeminiError, partsOf, requestOf, usageOf } from './gemini.wire';

/** `baseUrl` default https://generativelanguage.googleapis.com (the `/v1beta` path is added here). */
export type GeminiOptions = BackendOptions;

/**
 * Google Gemini through its native generateContent REST API over fetch (see docs/adr/0002): usage
 * with cached and thinking tokens, RetryInfo on 429, and the key check Gemini does its own way.
 */
export class GeminiProvider implements ModelProvider {
  readonly kind: string = 'gemini';
  private readonly root: string;

  constructor(private readonly options: GeminiOptions) {
    this.root = `${(options.baseUrl || 'https://generativelanguage.googleapis.com').replace(/\/+$/, '').replace(/\/v1beta$/, '')}/v1beta`;
  }

  get model(): string {
    return this.options.model;
  }

  private get headers(): Record<string, string> {
    return { ...(this.options.apiKey ? { 'x-goog-api-key': this.options.apiKey } : {}), ...this.options.headers };
  }

  private body(request: ChatRequest) {
    return requestOf(
      request.messages,
      request.tools,
      request.temperature ?? this.options.temperature,
      request.maxTokens ?? this.options.maxTokens,
    );
  }

  private url(method: 'generateContent' | 'streamGenerateContent'): string {
    const model = this.options.model.replace(/^models\//, '');
    return `${this.root}/models/${encodeURIComponent(model)}:${method}${method === 'streamGenerateContent' ? '?alt=sse' : ''}`;
  }

  private ids(): () => string {
    const prefix = randomUUID().slice(0, 8);
    let n = 0;
    return () => `call_${prefix}_${n++}`;
  }

  async chat(request: ChatRequest): Promise<ChatResponse> {
    const res = await httpRequest(
      this.url('generateContent'),
      { headers: this.headers, body: this.body(request), signal: request.signal, gate: request.gate },
      parseGeminiError,
    );
    const data = await readJson<GeminiResponse>(res, request.signal);
    blocked(data);
    const { text, calls } = partsOf(data, this.ids());
    return {
      content: text,
      toolCalls: calls,
      usage: usageOf(data.usageMetadata),
      finishReason: finishOf(data.candidates?.[0]?.finishReason, calls.length > 0),
      model: data.modelVersion ?? this.options.model,
      rateLimit: parseRateLimitHeaders(res.headers),
    };
  }

  async *chatStream(request: ChatRequest): AsyncIterable<ChatStreamEvent> {
    const res = await httpRequest(
      this.url('streamGenerateContent'),
      { headers: this.headers, body: this.body(request), signal: request.signal, gate: request.gate },
      parseGeminiError,
    );
    const nextId = this.ids();
    let content = '';
    let usage: Usage = emptyUsage();
    let finish: string | undefined;
    let model = this.options.model;
    const toolCalls: ToolCall[] = [];
    for await (const data of readSseData(res, request.signal)) {
      let chunk: GeminiResponse;
      try {
        chunk = JSON.parse(data) as GeminiResponse;
      } catch {
        throw new ProviderAttemptError('retryable', undefined, `Gemini sent a malformed stream event: ${data.slice(0, 200)}`);
      }
      blocked(chunk);
      if (chunk.usageMetadata) usage = usageOf(chunk.usageMetadata);
      if (chunk.modelVersion) model = chunk.modelVersion;
      finish = chunk.candidates?.[0]?.finishReason ?? finish;
      const { text, calls } = partsOf(chunk, nextId);
      if (text) {
        content += text;
        yield { type: 'text', text };
      }
      for (const call of calls) {
        toolCalls.push(call);
        yield { type: 'tool_call', call };
      }
    }
    yield {
      type: 'done',
      response: {
        content,
        toolCalls,
        usage,
        finishReason: finishOf(finish, toolCalls.length > 0),
        model,
        rateLimit: parseRateLimitHeaders(res.headers),
      },
    };
  }

  probe(signal: AbortSignal): Promise<ProbeResult> {
    return probeUrl(`${this.root}/models?pageSize=1`, this.headers, signal, (status, text) => {
      if (status === 401 || status === 403) return true;
      return parseGeminiError(status, safeJson(text)).keyRejected === true;
    });
  }
}

/** A prompt blocked by safety settings is the request's fault: surface it, do not retry. */
function blocked(res: GeminiResponse): void {
  const reason = res.promptFeedback?.blockReason;
  if (reason) throw new ProviderAttemptError('bad_request', 400, `Gemini blocked the prompt (${reason})`);
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
