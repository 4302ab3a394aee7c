const LF = 0x0a;
const CR = 0x0d;

/**
 * Passes an SSE byte stream on and fails it once one event holds more than `max` bytes (line ends not
 * counted). The SDK's SSE parser keeps an unfinished event in memory until its blank line arrives, so a
 * server sending one endless event would otherwise grow the gateway's heap without bound. An event
 * ends at an empty line; CRLF, LF and CR all end a line (the SSE grammar).
 */
export function sseEventCap(max: number, onOversize: (message: string) => void): TransformStream<Uint8Array, Uint8Array> {
  let size = 0; // bytes of the event being read
  let lineLength = 0; // bytes on the current line: 0 right after a line end
  let afterCr = false; // a CR ended the last line: a LF next is its CRLF, not an empty line
  return new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, out) {
      if (chunk.indexOf(LF) < 0 && chunk.indexOf(CR) < 0) {
        // One line going on (the endless event's case): no byte-by-byte scan.
        size += chunk.byteLength;
        lineLength += chunk.byteLength;
        afterCr = false;
      } else {
        for (const b of chunk) {
          if (afterCr && b === LF) {
            afterCr = false;
            continue;
          }
          afterCr = b === CR;
          if (b === LF || b === CR) {
            if (lineLength === 0) size = 0;
            lineLength = 0;
          } else {
            lineLength++;
            // Checked here, not once per chunk: a later blank line in the same chunk must not hide it.
            if (++size > max) break;
          }
        }
      }
      if (size > max) {
        const message = oversizeMessage(max);
        onOversize(message);
        out.error(new Error(message));
      } else out.enqueue(chunk);
    },
  });
}

/** What the log and /doctor say: what happened, what the gateway does, what the owner can do. */
export function oversizeMessage(max: number): string {
  return (
    `the server sent a notification-stream event larger than ${max} bytes; the connection was dropped and will be made again with backoff ` +
    `(if this repeats, the MCP server is broken or hostile: fix or update it, or remove it from mcp.servers)`
  );
}
