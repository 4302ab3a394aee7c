import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';

/** Most bytes one answer may carry: the stdio transport's line limit (the SDK's ReadBuffer default). */
export const MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

/**
 * fetch for the Streamable HTTP transport whose answers to POSTs (a call's result, as JSON or as an
 * SSE stream) fail once they pass `max` bytes, while they are read: the SDK reads a JSON answer
 * whole, so a server answering gigabytes would otherwise be held in the gateway's memory. The GET
 * notification stream is long-lived and passed on as it is.
 */
export function cappedFetch(max = MAX_RESPONSE_BYTES, base: FetchLike = fetch): FetchLike {
  return async (url, init) => {
    const res = await base(url, init);
    if ((init?.method ?? 'GET').toUpperCase() === 'GET' || !res.body || res.status < 200 || res.status > 299 || res.status === 204)
      return res;
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
    const capped = new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
    Object.defineProperty(capped, 'url', { value: res.url });
    return capped;
  };
}
