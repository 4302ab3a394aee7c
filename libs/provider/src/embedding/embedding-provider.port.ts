import { countTokens } from '@nestclaw/common';
/** Text → vectors, behind one port so the memory index does not care which backend computes them. */
export interface EmbeddingResult {
  /** One vector per input text, in input order. */
  vectors: number[][];
  /** Input tokens as reported (or estimated at ≈4 characters a token where the backend reports none). */
  inputTokens: number;
  model: string;
}

export interface EmbeddingProvider {
  readonly kind: string;
  readonly model: string;
  embed(texts: string[], options?: { signal?: AbortSignal }): Promise<EmbeddingResult>;
}

export const estimateTokens = (texts: string[]) => texts.reduce((n, t) => n + countTokens(t), 0);
