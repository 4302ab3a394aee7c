import type { ToolsConfig } from '@nestclaw/config';
import { ToolError } from '../tool.port';
import type { SearchBackend, SearchHit } from './search-backend.port';

type BackendConfig = NonNullable<ToolsConfig['search']['backend']>;

async function getJson(url: string, init: RequestInit, what: string): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(url, init);
  } catch (e) {
    throw new ToolError(`${what} is not reachable: ${(e as Error).message}`);
  }
  if (!res.ok) throw new ToolError(`${what} answered HTTP ${res.status}`);
  return res.json();
}

const trimSlash = (u: string) => u.replace(/\/+$/, '');

/** Keyless: a SearXNG instance with the JSON format enabled. */
export class SearxngBackend implements SearchBackend {
  readonly kind = 'searxng';
  constructor(private readonly url: string) {}
  async search(query: string, count: number, signal: AbortSignal): Promise<SearchHit[]> {
    const u = `${trimSlash(this.url)}/search?${new URLSearchParams({ q: query, format: 'json' })}`;
    const body = (await getJson(u, { signal }, 'SearXNG')) as { results?: { title?: string; url?: string; content?: string }[] };
    return (body.results ?? []).slice(0, count).map((r) => ({ title: r.title ?? '', url: r.url ?? '', snippet: r.content ?? '' }));
  }
}

/** Keyed: Brave Search API. */
export class BraveBackend implements SearchBackend {
  readonly kind = 'brave';
  constructor(
    private readonly url: string,
    private readonly apiKey: string,
  ) {}
  async search(query: string, count: number, signal: AbortSignal): Promise<SearchHit[]> {
    const u = `${trimSlash(this.url)}/res/v1/web/search?${new URLSearchParams({ q: query, count: String(count) })}`;
    const body = (await getJson(
      u,
      { signal, headers: { 'x-subscription-token': this.apiKey, accept: 'application/json' } },
      'Brave Search',
    )) as {
      web?: { results?: { title?: string; url?: string; description?: string }[] };
    };
    return (body.web?.results ?? []).slice(0, count).map((r) => ({ title: r.title ?? '', url: r.url ?? '', snippet: r.description ?? '' }));
  }
}

/** Keyed: Tavily search API. */
export class TavilyBackend implements SearchBackend {
  readonly kind = 'tavily';
  constructor(
    private readonly url: string,
    private readonly apiKey: string,
  ) {}
  async search(query: string, count: number, signal: AbortSignal): Promise<SearchHit[]> {
    const body = (await getJson(
      `${trimSlash(this.url)}/search`,
      {
        method: 'POST',
        signal,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${this.apiKey}` },
        body: JSON.stringify({ query, max_results: count }),
      },
      'Tavily',
    )) as { results?: { title?: string; url?: string; content?: string }[] };
    return (body.results ?? []).slice(0, count).map((r) => ({ title: r.title ?? '', url: r.url ?? '', snippet: r.content ?? '' }));
  }
}

export function createSearchBackend(c: BackendConfig): SearchBackend {
  switch (c.kind) {
    case 'searxng':
      return new SearxngBackend(c.url);
    case 'brave':
      return new BraveBackend(c.url, c.api_key);
    case 'tavily':
      return new TavilyBackend(c.url, c.api_key);
  }
}
