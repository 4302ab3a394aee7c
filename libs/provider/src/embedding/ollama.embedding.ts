import { httpRequest, readJson } from '../http/http-client';
import { parseOllamaError } from '../ollama/ollama.wire';
import { EmbeddingProvider, EmbeddingResult, estimateTokens } from './embedding-provider.port';

export interface OllamaEmbeddingOptions {
  baseUrl?: string;
  apiKey?: string;
  model: string;
  dimensions?: number;
  headers?: Record<string, string>;
}

/** Ollama's native `POST /api/embed` (batch input). */
export class OllamaEmbedding implements EmbeddingProvider {
  readonly kind: string = 'ollama';
  private readonly root: string;

  constructor(private readonly options: OllamaEmbeddingOptions) {
    this.root = (options.baseUrl || 'http://127.0.0.1:11434').replace(/\/+$/, '').replace(/\/api$/, '');
  }

  get model(): string {
    return this.options.model;
  }

  async embed(texts: string[], options: { signal?: AbortSignal } = {}): Promise<EmbeddingResult> {
    if (texts.length === 0) return { vectors: [], inputTokens: 0, model: this.options.model };
    const res = await httpRequest(
      `${this.root}/api/embed`,
      {
        headers: { ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}), ...this.options.headers },
        body: { model: this.options.model, input: texts, ...(this.options.dimensions ? { dimensions: this.options.dimensions } : {}) },
        signal: options.signal,
      },
      parseOllamaError,
    );
    const data = await readJson<{ model?: string; embeddings?: number[][]; prompt_eval_count?: number }>(res, options.signal);
    return {
      vectors: data.embeddings ?? [],
      inputTokens: data.prompt_eval_count ?? estimateTokens(texts),
      model: data.model ?? this.options.model,
    };
  }
}
