export interface SearchHit {
  title: string;
  url: string;
  snippet: string;
}

export interface SearchBackend {
  readonly kind: string;
  search(query: string, count: number, signal: AbortSignal): Promise<SearchHit[]>;
}
