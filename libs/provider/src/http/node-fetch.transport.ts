import { Agent as HttpAgent, IncomingMessage, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import { GatedInit, sendGated } from './gated-send';

/**
 * A `fetch` for model calls over node:http with keep-alive agents. Measured in `npm run bench`:
 * undici's fetch (what the SDKs use by default) allocated ~50 KB per call and held the gateway's
 * memory high under load; this transport keeps the per-turn cost flat. Bodies of event streams and
 * NDJSON are streamed, everything else is read whole. Failures reject like fetch: a TypeError with
 * the socket error as `cause`, or an AbortError when the signal fires. A request with a ledger gate
 * is written in the same tick as its row commits (sendGated).
 */
const agents = {
  'http:': new HttpAgent({ keepAlive: true, maxSockets: 256 }),
  'https:': new HttpsAgent({ keepAlive: true, maxSockets: 256 }),
};

const STREAMING = /text\/event-stream|application\/x-ndjson|application\/jsonl/i;

function headerRecord(headers: RequestInit['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  if (!headers) return out;
  if (headers instanceof Headers) headers.forEach((v, k) => (out[k] = v));
  else if (Array.isArray(headers)) for (const [k, v] of headers) out[k.toLowerCase()] = v;
  else for (const [k, v] of Object.entries(headers)) out[k.toLowerCase()] = String(v);
  return out;
}

function responseHeaders(res: IncomingMessage): Headers {
  const h = new Headers();
  for (const [k, v] of Object.entries(res.headers)) {
    if (v === undefined) continue;
    if (Array.isArray(v)) for (const item of v) h.append(k, item);
    else h.set(k, v);
  }
  return h;
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason instanceof Error ? signal.reason : new DOMException('This operation was aborted', 'AbortError');
}

export const nodeFetch: typeof fetch = (input, init: RequestInit & GatedInit = {}) => {
  const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
  const signal = init.signal ?? undefined;
  if (signal?.aborted) return Promise.reject(abortError(signal));
  const body = init.body;
  if (body !== undefined && body !== null && typeof body !== 'string' && !(body instanceof Uint8Array)) {
    // Not used by model calls; keep full fetch semantics for anything unusual.
    return fetch(input, init);
  }
  const headers = headerRecord(init.headers);
  if (body !== undefined && body !== null) headers['content-length'] = String(Buffer.byteLength(body));
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const agent = url.protocol === 'https:' ? agents['https:'] : agents['http:'];

  return new Promise<Response>((resolve, reject) => {
    const req = send(url, { method: init.method ?? 'GET', headers, agent, signal }, (res) => {
      const status = res.statusCode ?? 0;
      const init2: ResponseInit = { status, statusText: res.statusMessage, headers: responseHeaders(res) };
      const noBody = status === 204 || status === 304 || init.method === 'HEAD';
      if (noBody) {
        res.resume();
        return resolve(new Response(null, init2));
      }
      if (STREAMING.test(res.headers['content-type'] ?? '')) {
        return resolve(new Response(Readable.toWeb(res) as ReadableStream<Uint8Array>, init2));
      }
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve(new Response(Buffer.concat(chunks), init2)));
      res.on('error', (e) => reject(signal?.aborted ? abortError(signal) : new TypeError('fetch failed', { cause: e })));
    });
    req.on('error', (e) => reject(signal?.aborted ? abortError(signal) : new TypeError('fetch failed', { cause: e })));
    const { gate } = init;
    if (gate) sendGated(req, body ?? undefined, { ...init, gate }).catch((e: unknown) => req.destroy(e as Error));
    else req.end(body ?? undefined);
  });
};
