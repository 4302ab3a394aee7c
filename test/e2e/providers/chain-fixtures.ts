import { DatabaseService } from '@nestclaw/db';
import { Clock } from '@nestclaw/provider';
import type { Harness } from '../../support/gateway-harness';
import { FakeOpenAiServer } from '../../fixtures/fake-openai.server';

/** A `models:` entry for an OpenAI-compatible fake. */
export const openAiModel = (fake: FakeOpenAiServer, model: string, extra: Record<string, unknown> = {}) => ({
  provider: 'openai-compatible',
  base_url: fake.url,
  api_key: 'sk-test',
  model,
  price: { input: 1, output: 2 },
  ...extra,
});

export async function startFakes(n: number): Promise<FakeOpenAiServer[]> {
  const fakes = Array.from({ length: n }, () => new FakeOpenAiServer());
  await Promise.all(fakes.map((f) => f.start()));
  return fakes;
}

/** Chat requests a fake received (rejected ones included). */
export const chatHits = (fake: FakeOpenAiServer) =>
  fake.received.filter((r) => r.method === 'POST' && r.url === '/v1/chat/completions').length;

export interface CallRow {
  session_id: string;
  provider: string;
  model: string;
  attempt: number;
  is_fallback: boolean;
  status: string;
  error_code: string | null;
  input_tokens: number;
  output_tokens: number;
  cost_usd: string;
}

/** The `llm_calls` rows of a session, in the order they were written. */
export async function callsOf(h: Harness, sessionId: string): Promise<CallRow[]> {
  const { rows } = await h.gateway.app.get(DatabaseService).pool.query<CallRow>(
    `SELECT session_id, provider, model, attempt, is_fallback, status, error_code, input_tokens, output_tokens, cost_usd::text AS cost_usd
         FROM llm_calls WHERE session_id = $1 ORDER BY id`,
    [sessionId],
  );
  return rows;
}

/**
 * Freezes the clock the breakers and rate-limit windows read, so a test can move it by a minute
 * without waiting. Timeouts and backoff keep using real time.
 */
export function freezeClock(h: Harness): { advance(ms: number): void } {
  let now = Date.now();
  jest.spyOn(h.gateway.app.get(Clock), 'now').mockImplementation(() => now);
  return { advance: (ms) => (now += ms) };
}

export interface ChatBody {
  sessionId: string;
  reply: string;
  usage: { inputTokens: number; outputTokens: number; costUsd: number };
  error?: { code: string; message: string };
}

export async function chat(h: Harness, message: string, extra: Record<string, unknown> = {}): Promise<{ status: number; body: ChatBody }> {
  const res = await h.api('/v1/chat', { json: { message, ...extra } });
  return { status: res.status, body: (await res.json()) as ChatBody };
}
