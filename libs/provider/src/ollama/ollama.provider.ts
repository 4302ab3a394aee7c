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
import { httpRequest, probeUrl, readJson, readLines } from '../http/http-client';
import { callsOf, finishOf, messagesOf, OllamaChatChunk, parseOllamaError, toolsOf, usageOf } from './ollama.wire';

/** `baseUrl` default http://127.0.0.1:11434. */
export type OllamaOptions = BackendOptions;

/**
 * A local Ollama server through its native /api/chat (NDJSON streaming). Needs no network beyond
 * localhost, which makes it the natural last fallback.
 */
export class OllamaProvider implements ModelProvider {
  readonly kind: string = 'ollama';
  private readonly root: string;

  constructor(private readonly options: OllamaOptions) {
    this.root = (options.baseUrl || 'http://127.0.0.1:11434').replace(/\/+$/, '').replace(/\/api$/, '');
  }

  get model(): string {
    return this.options.model;
  }

  private get headers(): Record<string, string> {
    // Ollama itself takes no key; one is sent for servers behind an authenticating proxy.
    return { ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}), ...this.options.headers };
  }

  private body(request: ChatRequest, stream: boolean) {
    const temperature = request.temperature ?? this.options.temperature;
    const maxTokens = request.maxTokens ?? this.options.maxTokens;
    const options = { ...(temperature !== undefined ? { temperature } : {}), ...(maxTokens ? { num_predict: maxTokens } : {}) };
    return {
      model: this.options.model,
      messages: messagesOf(request.messages),
      stream,
      ...(request.tools?.length ? { tools: toolsOf(request.tools) } : {}),
      ...(Object.keys(options).length ? { options } : {}),
    };
  }

  private ids(): () => string {
    const prefix = randomUUID().slice(0, 8);
    let n = 0;
    return () => `call_${prefix}_${n++}`;
  }

  async chat(request: ChatRequest): Promise<ChatResponse> {
    const res = await httpRequest(
      `${this.root}/api/chat`,
      { headers: this.headers, body: this.body(request, false), signal: request.signal, gate: request.gate },
      parseOllamaError,
    );
    const data = await readJson<OllamaChatChunk>(res, request.signal);
    if (data.error) throw new ProviderAttemptError('retryable', undefined, `Ollama: ${data.error}`);
    const toolCalls = callsOf(data.message, this.ids());
    return {
      content: data.message?.content ?? '',
      toolCalls,
      usage: usageOf(data),
      finishReason: finishOf(data.done_reason, toolCalls.length > 0),
      model: data.model ?? this.options.model,
    };
  }

  async *chatStream(request: ChatRequest): AsyncIterable<ChatStreamEvent> {
    const res = await httpRequest(
      `${this.root}/api/chat`,
      { headers: this.headers, body: this.body(request, true), signal: request.signal, gate: request.gate },
      parseOllamaError,
    );
    const nextId = this.ids();
    let content = '';
    let usage: Usage = emptyUsage();
    let reason: string | undefined;
    let model = this.options.model;
    let finished = false;
    const toolCalls: ToolCall[] = [];
    for await (const line of readLines(res, request.signal)) {
      if (!line.trim()) continue;
      let chunk: OllamaChatChunk;
      try {
        chunk = JSON.parse(line) as OllamaChatChunk;
      } catch {
        throw new ProviderAttemptError('retryable', undefined, `Ollama sent a malformed stream line: ${line.slice(0, 200)}`);
      }
      if (chunk.error) throw new ProviderAttemptError('retryable', undefined, `Ollama: ${chunk.error}`);
      if (chunk.model) model = chunk.model;
      const text = chunk.message?.content;
      if (text) {
        content += text;
        yield { type: 'text', text };
      }
      for (const call of callsOf(chunk.message, nextId)) {
        toolCalls.push(call);
        yield { type: 'tool_call', call };
      }
      if (chunk.done) {
        usage = usageOf(chunk);
        reason = chunk.done_reason;
        finished = true;
      }
    }
    if (!finished) throw new ProviderAttemptError('retryable', undefined, 'Ollama stream ended before its final line');
    yield { type: 'done', response: { content, toolCalls, usage, finishReason: finishOf(reason, toolCalls.length > 0), model } };
  }

  probe(signal: AbortSignal): Promise<ProbeResult> {
    return probeUrl(`${this.root}/api/tags`, this.headers, signal);
  }
}
