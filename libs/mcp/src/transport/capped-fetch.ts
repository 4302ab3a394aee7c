import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { sseEventCap } from './sse-event-cap';

/** Most bytes one answer, or one event of the notification stream, may carry: the stdio transport's line limit (the SDK's ReadBuffer default). */
export const MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

export interface CappedFetchOptions {
  max?: number;
  base?: FetchLike;
  /** Told when the notification stream is cut for an over-size event, so the connection is made again. */
  onOversize?: (message: string) => void;
}

/**
 * fetch for the Streamable HTTP transport that never holds an unbounded answer in the gateway's memory.
 * The answer to a POST (a call's result, as JSON or as an SSE stream) fails once it passes `max` bytes:
 * the SDK reads a JSON answer whole. The GET notification stream is long-lived, so its total is not
 * capped, but each event is: it fails once one event passes `max` bytes, and `onOversize` hears why
 * (the SDK only reconnects that stream, against the same server, without backoff).
 */
export function cappedFetch({ max = MAX_RESPONSE_BYTES, base = fetch, onOversize = () => undefined }: CappedFetchOptions = {}): FetchLike {
  return async (url, init) => {
    const res = await base(url, init);
    if (!res.body || res.status < 200 || res.status > 299 || res.status === 204) return res;
    if ((init?.method ?? 'GET').toUpperCase() === 'GET') return withBody(res, res.body.pipeThrough(sseEventCap(max, onOversize)));
    let seen = 0;
    const body = res.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, out) {
          seen += chunk.byteLength;
          if (seen > max) out.error(new Error(`the answer is larger than ${max} bytes`));
          else out.enqueue(chunk);
        },
      }),
    );
    return withBody(res, body);
  };
}

function withBody(res: Response, body: ReadableStream<Uint8Array>): Response {
  const capped = new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  Object.defineProperty(capped, 'url', { value: res.url });
  return capped;
}
