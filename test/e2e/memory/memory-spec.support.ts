import { SECTION_OPEN } from '@nestclaw/memory';
import type { FakeOpenAiServer } from '../../fixtures/fake-openai.server';
import type { Harness } from '../../support/gateway-harness';

/**
 * Provider settings for specs that read what the model was sent: with stored answers on, a turn
 * whose prompt equals an earlier one (same recalled memories, same minute) is answered from the
 * store and never reaches the fake model, so "the last request" would be an older turn's.
 */
export const NO_REPLAYED_ANSWERS = { idempotency_ttl: 0 };

/** The recalled-memories system message of the last model request, if any. */
export function memoryPrompt(llm: FakeOpenAiServer): string | undefined {
  const last = llm.requests[llm.requests.length - 1];
  return last?.body.messages.find((m) => m.role === 'system' && (m.content ?? '').startsWith(SECTION_OPEN))?.content ?? undefined;
}

/** Sends one chat turn and returns the recalled-memories section the model saw for it ('' when none). */
export async function turnMemoryPrompt(llm: FakeOpenAiServer, send: () => Promise<Response>): Promise<string> {
  const before = llm.requests.length;
  const res = await send();
  if (res.status !== 200) throw new Error(`chat answered ${res.status}: ${await res.text()}`);
  await res.arrayBuffer();
  if (llm.requests.length === before) throw new Error('the turn made no model request, so there is no prompt to read');
  return memoryPrompt(llm) ?? '';
}

export async function waitFor(check: () => Promise<boolean> | boolean, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A paired API token with the chat scope, as a person other than the owner. */
export async function pairedToken(h: Harness, name: string): Promise<string> {
  const code = await h.api('/v1/pair/codes', { json: { scopes: ['chat'] } });
  const { code: c } = (await code.json()) as { code: string };
  const res = await fetch(`${h.gateway.url}/v1/pair`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code: c, name }),
  });
  return ((await res.json()) as { token: string }).token;
}

/** Waits until the index worker has applied every queued change (and no rebuild is running). */
export async function indexed(h: Harness, timeoutMs = 15_000): Promise<void> {
  await waitFor(async () => {
    const s = (await (await h.api('/v1/memory/status')).json()) as {
      queue: { pending: number };
      reindex: { state: string };
      index: { ready: boolean };
    };
    return s.queue.pending === 0 && s.reindex.state !== 'running' && s.index.ready;
  }, timeoutMs);
}

/** Waits until a keyword search finds `text` (entries retried for vectors keep the queue non-empty meanwhile). */
export async function searchable(h: Harness, query: string, text: string): Promise<void> {
  await waitFor(async () => {
    const r = (await (await h.api(`/v1/memory/search?mode=keyword&q=${encodeURIComponent(query)}`)).json()) as {
      results: { content: string }[];
    };
    return r.results.some((x) => x.content.includes(text));
  });
}
