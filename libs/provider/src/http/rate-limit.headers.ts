import type { RateLimitInfo } from '../model-provider.port';

type HeaderSource = { get(name: string): string | null } | undefined | null;

/**
 * Reset values come as Go-style durations ("1s", "6m0s", "20ms"), bare seconds, or (Anthropic) an
 * RFC 3339 time. Returns milliseconds from now.
 */
export function parseReset(value: string | null | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Number(v) * 1000;
  const parts = [...v.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
  if (parts.length && parts.map((p) => p[0]).join('') === v) {
    const unit: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
    return parts.reduce((ms, p) => ms + Number(p[1]) * unit[p[2]], 0);
  }
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

const num = (v: string | null | undefined): number | undefined => {
  if (v === null || v === undefined || v === '') return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : undefined;
};

/** Reads OpenAI-style (`x-ratelimit-*`) or Anthropic-style (`anthropic-ratelimit-*`) headers. */
export function parseRateLimitHeaders(headers: HeaderSource): RateLimitInfo | undefined {
  if (!headers) return undefined;
  const h = (name: string) => headers.get(name);
  const info: RateLimitInfo = {
    remainingRequests: num(h('x-ratelimit-remaining-requests') ?? h('anthropic-ratelimit-requests-remaining')),
    remainingTokens: num(h('x-ratelimit-remaining-tokens') ?? h('anthropic-ratelimit-tokens-remaining')),
    resetRequestsMs: parseReset(h('x-ratelimit-reset-requests') ?? h('anthropic-ratelimit-requests-reset')),
    resetTokensMs: parseReset(h('x-ratelimit-reset-tokens') ?? h('anthropic-ratelimit-tokens-reset')),
  };
  return info.remainingRequests === undefined && info.remainingTokens === undefined ? undefined : info;
}
