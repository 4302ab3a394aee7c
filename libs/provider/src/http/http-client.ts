import type { ProbeResult } from '../model-provider.port';
import { classifyHttpFailure, classifyTransportFailure, HttpFailure, parseRetryAfter } from '../provider.errors';
import { nodeFetch } from './node-fetch.transport';
import { gatedFetchOptions } from './gated-send';
import type { CallGate } from '../llm-call.record';
import { parseRateLimitHeaders } from './rate-limit.headers';

/** Pulls a message (and any backend-specific hints) out of an error response body. */
export type ErrorBodyParser = (status: number, body: unknown, text: string) => Partial<HttpFailure>;

export interface HttpRequest {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: unknown;
  signal?: AbortSignal;
  /** The attempt's ledger row, committed as the request is written (CallLedger). */
  gate?: CallGate;
}

/**
 * fetch for the adapters without an SDK (Gemini, Ollama): JSON in, Response out, every failure
 * thrown as a classified ProviderAttemptError carrying status, Retry-After and rate-limit headers.
 */
export async function httpRequest(url: string, req: HttpRequest, parseError: ErrorBodyParser): Promise<Response> {
  let res: Response;
  try {
    res = await nodeFetch(url, {
      method: req.method ?? (req.body === undefined ? 'GET' : 'POST'),
      headers: { ...(req.body === undefined ? {} : { 'content-type': 'application/json' }), ...req.headers },
      body: req.body === undefined ? undefined : JSON.stringify(req.body),
      signal: req.signal,
      ...gatedFetchOptions(req.gate),
    });
  } catch (e) {
    throw classifyTransportFailure(e, req.signal);
  }
  if (res.ok) return res;
  let text = '';
  try {
    text = await res.text();
  } catch (e) {
    throw classifyTransportFailure(e, req.signal);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const parsed = parseError(res.status, body, text);
  throw classifyHttpFailure({
    status: res.status,
    message: parsed.message ?? (text.slice(0, 500) || `HTTP ${res.status}`),
    retryAfterMs: parsed.retryAfterMs ?? parseRetryAfter(res.headers.get('retry-after')),
    rateLimit: parseRateLimitHeaders(res.headers),
    keyRejected: parsed.keyRejected,
  });
}

/** Reads a JSON body; a connection dropped mid-body is a retryable transport failure. */
export async function readJson<T>(res: Response, signal?: AbortSignal): Promise<T> {
  try {
    return (await res.json()) as T;
  } catch (e) {
    throw classifyTransportFailure(e, signal);
  }
}

/** Splits a streamed body into lines (NDJSON, or SSE before `data:` parsing). */
export async function* readLines(res: Response, signal?: AbortSignal): AsyncIterable<string> {
  if (!res.body) return;
  const decoder = new TextDecoder();
  let buffered = '';
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffered += decoder.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl).replace(/\r$/, '');
        buffered = buffered.slice(nl + 1);
        yield line;
      }
    }
  } catch (e) {
    throw classifyTransportFailure(e, signal);
  }
  buffered += decoder.decode();
  if (buffered.trim()) yield buffered;
}

/** The `data:` payloads of a server-sent event stream (one JSON document per event). */
export async function* readSseData(res: Response, signal?: AbortSignal): AsyncIterable<string> {
  let data: string[] = [];
  for await (const line of readLines(res, signal)) {
    if (line === '') {
      if (data.length) yield data.join('\n');
      data = [];
    } else if (line.startsWith('data:')) {
      data.push(line.slice(5).replace(/^ /, ''));
    }
  }
  if (data.length) yield data.join('\n');
}

/** Times a token-free GET used as a reachability and key check. */
export async function probeUrl(
  url: string,
  headers: Record<string, string>,
  signal: AbortSignal,
  isKeyRejected: (status: number, text: string) => boolean = (s) => s === 401 || s === 403,
): Promise<ProbeResult> {
  const started = performance.now();
  const latencyMs = () => Math.round(performance.now() - started);
  try {
    const res = await fetch(url, { headers, signal });
    const text = res.ok ? '' : await res.text().catch(() => '');
    const keyRejected = !res.ok && isKeyRejected(res.status, text);
    return {
      reachable: true,
      status: res.status,
      keyRejected,
      latencyMs: latencyMs(),
      error: keyRejected ? text.slice(0, 300) : undefined,
    };
  } catch (e) {
    const err = e as Error & { cause?: { code?: string } };
    return { reachable: false, keyRejected: false, latencyMs: latencyMs(), error: err.cause?.code ?? err.message };
  }
}
