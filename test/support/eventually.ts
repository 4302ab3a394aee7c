/**
 * Polls `probe` until it returns a value other than undefined/false, or fails naming `what`. For
 * outcomes another process reaches on its own schedule (a turn closing, a row landing): the test
 * waits for the state itself instead of sleeping for a guessed time.
 */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${(last as Error).message})` : ''}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}
