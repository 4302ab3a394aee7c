import { sseEventCap } from './sse-event-cap';

const bytes = (s: string) => new TextEncoder().encode(s);

/** Pipes the chunks through a cap of `max` bytes; the text that came out, or the error it failed with. */
async function run(max: number, chunks: string[]): Promise<{ out: string; error?: string; told: string[] }> {
  const told: string[] = [];
  const source = new ReadableStream<Uint8Array>({
    start(c) {
      for (const chunk of chunks) c.enqueue(bytes(chunk));
      c.close();
    },
  });
  const reader = source.pipeThrough(sseEventCap(max, (m) => told.push(m))).getReader();
  let out = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return { out, told };
      out += new TextDecoder().decode(value);
    }
  } catch (e) {
    return { out, error: (e as Error).message, told };
  }
}

describe('sseEventCap', () => {
  it('passes any number of events that each stay under the cap, whatever their total', async () => {
    const events = Array.from({ length: 50 }, (_, i) => `data: ${String(i).padStart(10, '0')}\n\n`);
    const r = await run(20, events);
    expect(r.error).toBeUndefined();
    expect(r.out).toBe(events.join(''));
  });

  it('counts an event across chunks and lines until its blank line, with CRLF, LF or CR line ends', async () => {
    // 16 + 7 bytes, then 16 + 11: line ends are not counted, a blank line starts the next event.
    expect((await run(25, ['data: 0123', '456789\r\n', 'data: x\r\n\r\n'])).error).toBeUndefined();
    expect((await run(25, ['data: 0123', '456789\r\n', 'data: 0123', '4\r\n\r\n'])).error).toContain('larger than 25 bytes');
    expect((await run(25, ['data: 0123456789\r\rdata: 0123456789\r', '\r'])).error).toBeUndefined();
    expect((await run(25, ['data: 0123456789\r\n', '\r\ndata: 0123456789\n\n'])).error).toBeUndefined();
  });

  it('fails an endless event once it passes the cap, and says so to the connection', async () => {
    const r = await run(1000, ['data: ', ...Array.from({ length: 100 }, () => 'x'.repeat(100))]);
    expect(r.error).toContain('larger than 1000 bytes');
    expect(r.told).toEqual([r.error]);
    expect(r.out.length).toBeLessThanOrEqual(1000);
  });

  it('fails an over-size event even when the same chunk ends it', async () => {
    expect((await run(10, ['data: 0123456789\n\n'])).error).toContain('larger than 10 bytes');
  });
});
