import { request as httpRequest, IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { ToolError } from '../tool.port';
import { SsrfGuard } from './ssrf-guard';

export interface HttpCall {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface HttpAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  truncated: boolean;
  /** Every URL visited, the last one answered. */
  chain: string[];
}

export interface GuardedHttpOptions {
  guard: SsrfGuard;
  timeoutMs: number;
  maxRedirects: number;
  maxBodyBytes: number;
}

/**
 * HTTP with the SSRF guard on every hop: each redirect target is resolved and checked again, and
 * the connection goes to the checked address (the Host header and TLS name stay the original).
 */
export async function guardedRequest(call: HttpCall, o: GuardedHttpOptions, signal?: AbortSignal): Promise<HttpAnswer> {
  let url = parseUrl(call.url);
  let method = call.method.toUpperCase();
  let body = call.body;
  const chain: string[] = [];
  for (let hop = 0; ; hop++) {
    const address = await o.guard.check(url);
    chain.push(url.toString());
    const res = await send(url, address, method, call.headers ?? {}, body, o, signal);
    const location = res.message.headers.location;
    if (res.message.statusCode && res.message.statusCode >= 300 && res.message.statusCode < 400 && location) {
      res.message.resume();
      if (hop >= o.maxRedirects) throw new ToolError(`too many redirects (more than ${o.maxRedirects})`);
      url = parseUrl(new URL(location, url).toString());
      if (res.message.statusCode === 303 || ((res.message.statusCode === 301 || res.message.statusCode === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
      }
      continue;
    }
    const { text, truncated } = await readCapped(res.message, o.maxBodyBytes);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.message.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
    return { status: res.message.statusCode ?? 0, headers, body: text, truncated, chain };
  }
}

function parseUrl(raw: string): URL {
  try {
    return new URL(raw);
  } catch {
    throw new ToolError(`invalid URL: ${raw}`);
  }
}

function send(
  url: URL,
  address: string,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  o: GuardedHttpOptions,
  signal?: AbortSignal,
): Promise<{ message: IncomingMessage }> {
  return new Promise((resolve, reject) => {
    const family = isIP(address) === 6 ? 6 : 4;
    const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(
      url,
      {
        method,
        headers: { 'user-agent': 'nestclaw', ...headers },
        timeout: o.timeoutMs,
        signal,
        // Connect to the address the guard checked, whatever DNS says now.
        lookup: (_host, opts, cb) => {
          if ((opts as { all?: boolean }).all)
            (cb as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family }]);
          else (cb as (e: null, a: string, f: number) => void)(null, address, family);
        },
      },
      (message) => resolve({ message }),
    );
    req.on('timeout', () => req.destroy(new ToolError(`request timed out after ${o.timeoutMs} ms`)));
    req.on('error', (e) => reject(e instanceof ToolError ? e : new ToolError(`request failed: ${e.message}`)));
    req.end(body);
  });
}

async function readCapped(res: IncomingMessage, max: number): Promise<{ text: string; truncated: boolean }> {
  const parts: Buffer[] = [];
  let size = 0;
  let truncated = false;
  for await (const chunk of res) {
    const b = chunk as Buffer;
    if (size + b.length > max) {
      parts.push(b.subarray(0, max - size));
      truncated = true;
      res.destroy();
      break;
    }
    parts.push(b);
    size += b.length;
  }
  return { text: Buffer.concat(parts).toString('utf8'), truncated };
}
