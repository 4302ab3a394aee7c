import { estimateTokens, FakeOpenAiServer, RecordedRequest } from '../fixtures/fake-openai.server';

/**
 * The test suite's fake OpenAI server in a process of its own, so the benchmark's load generator,
 * the fake model and the gateway never share an event loop. Talks to the parent over IPC:
 *   → { type: 'ready', url }                      once listening
 *   ← { type: 'last' }  → { type: 'last', request, promptTokens, requests }
 *                         the last chat request received, with the fixture's own token estimate
 * Exits when the parent goes away. Only the latest request is kept so a 10k-turn soak does not
 * grow this process (the fixture keeps every request for the tests' assertions).
 */
export interface FakeLlmLastReply {
  type: 'last';
  request: RecordedRequest | undefined;
  /** The fixture's usage estimate: ≈4 characters a token over messages + tools JSON. */
  promptTokens: number | undefined;
  /** Chat requests received since start. */
  requests: number;
}

async function main(): Promise<void> {
  const llm = new FakeOpenAiServer();
  let total = 0;
  const requests = llm.requests;
  requests.push = (...items: RecordedRequest[]): number => {
    total += items.length;
    requests.length = 0;
    return Array.prototype.push.apply(requests, items.slice(-1));
  };
  const url = await llm.start(Number(process.env.FAKE_LLM_PORT ?? 0));
  process.on('message', (msg: { type?: string }) => {
    if (msg?.type !== 'last') return;
    const request = requests[requests.length - 1];
    const promptTokens = request
      ? estimateTokens(JSON.stringify(request.body.messages) + (request.body.tools ? JSON.stringify(request.body.tools) : ''))
      : undefined;
    process.send?.({ type: 'last', request, promptTokens, requests: total } satisfies FakeLlmLastReply);
  });
  const stop = () => void llm.stop().finally(() => process.exit(0));
  process.on('disconnect', stop);
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.send?.({ type: 'ready', url });
}

main().catch((e: unknown) => {
  process.stderr.write(`fake LLM could not start: ${(e as Error)?.stack ?? String(e)}\n`);
  process.exit(1);
});
