import {
  ChatRequest,
  ChatResponse,
  ChatStreamEvent,
  emptyUsage,
  ModelProvider,
  ProbeResult,
  ProviderAttemptError,
} from '@nestclaw/provider';
import type { PluginModel } from './plugin-api';

/**
 * A trusted plugin's model as a ModelProvider. The ReliableProvider wraps it like every adapter
 * (retries, fallback, breaker, budget); the ledger row is committed before the plugin is asked, as a
 * transport does before it writes a request.
 */
export class PluginModelProvider implements ModelProvider {
  constructor(
    readonly kind: string,
    readonly model: string,
    private readonly plugin: PluginModel,
  ) {}

  async chat(request: ChatRequest): Promise<ChatResponse> {
    const open = await request.gate?.();
    await open?.commit();
    let answer;
    try {
      answer = await this.plugin.chat({
        messages: request.messages,
        tools: request.tools,
        temperature: request.temperature,
        maxTokens: request.maxTokens,
        signal: request.signal,
      });
    } catch (e) {
      if (e instanceof ProviderAttemptError) throw e;
      // A plugin's own error is retried like a network failure; a cancelled turn is not.
      if (request.signal?.aborted) throw new ProviderAttemptError('cancelled', undefined, 'cancelled');
      throw new ProviderAttemptError('retryable', undefined, `plugin model failed: ${(e as Error)?.message ?? String(e)}`);
    }
    const toolCalls = Array.isArray(answer?.toolCalls) ? answer.toolCalls : [];
    return {
      content: typeof answer?.content === 'string' ? answer.content : '',
      toolCalls,
      usage: { ...emptyUsage(), ...answer?.usage },
      finishReason: toolCalls.length ? 'tool_calls' : 'stop',
      model: this.model,
    };
  }

  /** Plugins answer whole; the stream is that answer in one piece. */
  async *chatStream(request: ChatRequest): AsyncIterable<ChatStreamEvent> {
    const response = await this.chat(request);
    if (response.content) yield { type: 'text', text: response.content };
    for (const call of response.toolCalls) yield { type: 'tool_call', call };
    yield { type: 'done', response };
  }

  async probe(signal: AbortSignal): Promise<ProbeResult> {
    const started = Date.now();
    try {
      const reachable = this.plugin.probe ? await this.plugin.probe(signal) : true;
      return { reachable, keyRejected: false, latencyMs: Date.now() - started };
    } catch (e) {
      return { reachable: false, keyRejected: false, latencyMs: Date.now() - started, error: (e as Error).message };
    }
  }
}
