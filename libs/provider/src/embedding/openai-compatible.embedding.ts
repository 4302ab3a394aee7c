import OpenAI from 'openai';
import { classifySdkFailure } from '../http/sdk-errors';
import { EmbeddingProvider, EmbeddingResult } from './embedding-provider.port';

export interface OpenAiEmbeddingOptions {
  baseUrl: string;
  apiKey?: string;
  model: string;
  dimensions?: number;
  headers?: Record<string, string>;
}

/** `POST /v1/embeddings` on any OpenAI-compatible server. */
export class OpenAiCompatibleEmbedding implements EmbeddingProvider {
  readonly kind: string = 'openai-compatible';
  private readonly client: OpenAI;

  constructor(private readonly options: OpenAiEmbeddingOptions) {
    this.client = new OpenAI({
      baseURL: options.baseUrl,
      apiKey: options.apiKey || 'not-set',
      maxRetries: 0,
      timeout: 10 * 60 * 1000,
      defaultHeaders: options.headers,
    });
  }

  get model(): string {
    return this.options.model;
  }

  async embed(texts: string[], options: { signal?: AbortSignal } = {}): Promise<EmbeddingResult> {
    if (texts.length === 0) return { vectors: [], inputTokens: 0, model: this.options.model };
    try {
      const res = await this.client.embeddings.create(
        {
          model: this.options.model,
          input: texts,
          encoding_format: 'float',
          ...(this.options.dimensions ? { dimensions: this.options.dimensions } : {}),
        },
        { signal: options.signal },
      );
      const vectors = [...res.data].sort((a, b) => a.index - b.index).map((d) => d.embedding);
      return { vectors, inputTokens: res.usage?.prompt_tokens ?? 0, model: res.model || this.options.model };
    } catch (e) {
      throw classifySdkFailure(e, options.signal);
    }
  }
}
