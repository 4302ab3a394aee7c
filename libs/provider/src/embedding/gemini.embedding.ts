import { httpRequest, readJson } from '../http/http-client';
import { parseGeminiError } from '../gemini/gemini.wire';
import { EmbeddingProvider, EmbeddingResult, estimateTokens } from './embedding-provider.port';

export interface GeminiEmbeddingOptions {
  baseUrl?: string;
  apiKey?: string;
  model: string;
  dimensions?: number;
  headers?: Record<string, string>;
}

/** Gemini's native `models/{model}:batchEmbedContents`; it reports no token counts, so they are estimated. */
export class GeminiEmbedding implements EmbeddingProvider {
  readonly kind: string = 'gemini';
  private readonly root: string;

  constructor(private readonly options: GeminiEmbeddingOptions) {
    this.root = `${(options.baseUrl || 'https://generativelanguage.googleapis.com').replace(/\/+$/, '').replace(/\/v1beta$/, '')}/v1beta`;
  }

  get model(): string {
    return this.options.model;
  }

  async embed(texts: string[], options: { signal?: AbortSignal } = {}): Promise<EmbeddingResult> {
    if (texts.length === 0) return { vectors: [], inputTokens: 0, model: this.options.model };
    const model = `models/${this.options.model.replace(/^models\//, '')}`;
    const res = await httpRequest(
      `${this.root}/${model}:batchEmbedContents`,
      {
        headers: { ...(this.options.apiKey ? { 'x-goog-api-key': this.options.apiKey } : {}), ...this.options.headers },
        body: {
          requests: texts.map((text) => ({
            model,
            content: { parts: [{ text }] },
            ...(this.options.dimensions ? { outputDimensionality: this.options.dimensions } : {}),
          })),
        },
        signal: options.signal,
      },
      parseGeminiError,
    );
    const data = await readJson<{ embeddings?: { values: number[] }[] }>(res, options.signal);
    return { vectors: (data.embeddings ?? []).map((e) => e.values), inputTokens: estimateTokens(texts), model: this.options.model };
  }
}
