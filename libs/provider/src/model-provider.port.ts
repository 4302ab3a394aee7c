/** The provider-neutral chat model every backend adapter speaks. */
import type { CallGate } from './llm-call.record';

export interface ToolCall {
  id: string;
  name: string;
  /** Raw JSON text as the model produced it; parsed (and validated) by the tool layer. */
  arguments: string;
}

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; content: string; toolCallId: string; name?: string };

export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON Schema of the input object. */
  parameters: Record<string, unknown>;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  /** Part of inputTokens served from the provider's prompt cache, where reported. */
  cachedInputTokens: number;
  /** Part of inputTokens written to the prompt cache (Anthropic bills these above the input price). */
  cacheWriteInputTokens?: number;
}

/**
 * What a provider's rate-limit headers said (`x-ratelimit-remaining-*`, `anthropic-ratelimit-*`).
 * Resets are relative (ms from when the response arrived) so adapters need no clock.
 */
export interface RateLimitInfo {
  remainingRequests?: number;
  remainingTokens?: number;
  resetRequestsMs?: number;
  resetTokensMs?: number;
}

export interface ChatRequest {
  messages: ChatMessage[];
  tools?: ToolDefinition[];
  temperature?: number;
  maxTokens?: number;
  signal?: AbortSignal;
  /**
   * Writes this attempt's ledger row (set by the ReliableProvider): adapters hand it to the
   * transport (`nodeFetch`), which commits the row in the same tick as it writes the request.
   * Adapters whose API takes a client request id send the row id, so a bill can be matched row by row.
   */
  gate?: CallGate;
}

export type FinishReason = 'stop' | 'tool_calls' | 'length' | 'content_filter' | 'other';

export interface ChatResponse {
  content: string;
  toolCalls: ToolCall[];
  usage: Usage;
  finishReason: FinishReason;
  /** The backend's model id (e.g. "gpt-4o-mini"). */
  model: string;
  /** Rate-limit headers of the response, when the backend sends them. */
  rateLimit?: RateLimitInfo;
}

export type ChatStreamEvent =
  | { type: 'text'; text: string }
  /** Emitted once a tool call is complete (name and full arguments). */
  | { type: 'tool_call'; call: ToolCall }
  | { type: 'done'; response: ChatResponse };

/** Result of a cheap, token-free reachability check (a model list request). */
export interface ProbeResult {
  reachable: boolean;
  /** HTTP status of the probe, when the server answered. */
  status?: number;
  /** The server refused the key (401/403 or the backend's equivalent). */
  keyRejected: boolean;
  latencyMs: number;
  error?: string;
}

/**
 * Port implemented by every backend (OpenAI-compatible, Anthropic, Gemini, Ollama, …).
 * Adapters never retry: failures are thrown as ProviderAttemptError and the ReliableProvider decides.
 */
export interface ModelProvider {
  /** Backend kind, e.g. "openai-compatible". */
  readonly kind: string;
  /** Backend model id sent on the wire. */
  readonly model: string;
  chat(request: ChatRequest): Promise<ChatResponse>;
  chatStream(request: ChatRequest): AsyncIterable<ChatStreamEvent>;
  probe(signal: AbortSignal): Promise<ProbeResult>;
}

export const emptyUsage = (): Usage => ({ inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 });

/** Settings every backend adapter takes (from a `models.<name>` config entry). */
export interface BackendOptions {
  /** The service's endpoint; each adapter has its own default. */
  baseUrl?: string;
  apiKey?: string;
  /** Backend model id sent on the wire. */
  model: string;
  temperature?: number;
  maxTokens?: number;
  /** Extra HTTP headers on every request. */
  headers?: Record<string, string>;
}
