import type { ServerResponse } from 'node:http';

/** A Server-Sent Events response on the raw Node response (Fastify hands it over with hijack()). */
export class SseStream {
  private ended = false;

  constructor(
    private readonly res: ServerResponse,
    extraHeaders: Record<string, string> = {},
  ) {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
      ...extraHeaders,
    });
    res.flushHeaders();
    // A client that goes away mid-stream must not turn later writes into an unhandled 'error' event.
    res.on('error', () => (this.ended = true));
    res.on('close', () => (this.ended = true));
  }

  event(name: string, data: unknown): void {
    if (!this.ended) this.res.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  /** A bare `data:` line, as OpenAI-style streams use. */
  data(payload: string): void {
    if (!this.ended) this.res.write(`data: ${payload}\n\n`);
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.res.end();
  }
}
