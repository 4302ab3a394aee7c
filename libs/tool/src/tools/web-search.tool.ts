import { z } from 'zod';
import type { ToolsConfig } from '@nestclaw/config';
import { createSearchBackend } from '../search/search-backends';
import { Tool, ToolError, ToolRuntime } from '../tool.port';

const input = z.object({
  query: z.string().min(1),
  count: z.number().int().min(1).max(20).optional(),
});

/** Web search through the configured backend (SearXNG, Brave or Tavily). */
export class WebSearchTool implements Tool<typeof input> {
  readonly name = 'web_search';
  readonly description = 'Search the web.';
  readonly input = input;
  readonly sideEffects = () => false;

  constructor(private readonly config: () => ToolsConfig) {}

  async execute(_ctx: ToolRuntime, i: z.output<typeof input>, signal: AbortSignal): Promise<string> {
    const t = this.config().search;
    if (!t.backend) throw new ToolError('no search backend is configured (tools.search.backend)');
    const hits = await createSearchBackend(t.backend).search(
      i.query,
      i.count ?? 5,
      AbortSignal.any([signal, AbortSignal.timeout(t.timeout)]),
    );
    if (hits.length === 0) return 'no results';
    return hits.map((h, n) => `${n + 1}. ${h.title}\n   ${h.url}\n   ${h.snippet}`).join('\n');
  }
}
