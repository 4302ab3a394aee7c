import { z } from 'zod';
import type { ToolsConfig } from '@nestclaw/config';
import { guardedRequest } from '../net/guarded-http.client';
import { Resolver, SsrfGuard } from '../net/ssrf-guard';
import { Tool, ToolRuntime } from '../tool.port';

const input = z.object({
  method: z.enum(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']),
  url: z.string().min(1),
  headers: z.record(z.string(), z.string()).optional(),
  body: z.string().optional(),
});

const MAX_BODY_BYTES = 256 * 1024;

/** Outbound HTTP; private, loopback and link-local destinations refused on every hop. */
export class HttpRequestTool implements Tool<typeof input> {
  readonly name = 'http_request';
  readonly description = 'Make an HTTP request to a public URL.';
  readonly input = input;
  /** GET and HEAD only read (RFC 9110 safe methods); anything else may change the remote side. */
  readonly sideEffects = (i: z.output<typeof input>): boolean => i.method !== 'GET' && i.method !== 'HEAD';

  constructor(
    private readonly config: () => ToolsConfig,
    private readonly resolver?: Resolver,
  ) {}

  async execute(_ctx: ToolRuntime, i: z.output<typeof input>, signal: AbortSignal): Promise<string> {
    const t = this.config().http;
    const guard = new SsrfGuard({ allowHosts: t.allow_hosts, resolve: this.resolver });
    const res = await guardedRequest(
      { method: i.method, url: i.url, headers: i.headers, body: i.body },
      { guard, timeoutMs: t.timeout, maxRedirects: t.max_redirects, maxBodyBytes: MAX_BODY_BYTES },
      signal,
    );
    const type = res.headers['content-type'] ?? '';
    return `HTTP ${res.status}${type ? ` (${type})` : ''}\n${res.body}${res.truncated ? '\n[body truncated]' : ''}`;
  }
}
