import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestclaw/config';
import type { ProbeResult } from '../model-provider.port';
import { OPENAI_COMPATIBLE_PRESETS } from '../openai/openai-presets';
import { BrokenModel, ProviderRegistry, RegisteredModel } from '../provider.registry';
import { CircuitBreakerRegistry } from '../reliability/circuit-breaker.registry';
import type { BreakerState } from '../reliability/model-breaker';
import { ERROR_RATE_WINDOW_MS } from '../reliability/model-breaker';
import { RateLimitTracker } from '../reliability/rate-limit.tracker';

export interface ModelStatus {
  name: string;
  kind: 'chat' | 'embedding';
  provider: string;
  model: string;
  /** Base URL the adapter talks to (user:password parts removed). */
  endpoint: string;
  /** Where the default chain uses it. */
  role: 'primary' | 'fallback' | 'none';
  keySet: boolean;
  keyRequired: boolean;
  /** The provider refused the key (on the probe, or on the last real call). */
  keyRejected: boolean;
  breaker: { state: BreakerState; probeAt?: string };
  recent: { windowSec: number; calls: number; failures: number; errorRate: number };
  rateLimit: {
    rpm?: number;
    tpm?: number;
    requestsLastMinute: number;
    tokensLastMinute: number;
    remainingRequests?: number;
    remainingTokens?: number;
    blockedUntil?: string;
  };
  lastAuthFailure?: { at: string; status?: number; message: string };
  /** Absent when not probed. */
  reachability?: ProbeResult;
}

export interface ProvidersReport {
  models: ModelStatus[];
  misconfigured: BrokenModel[];
}

/** How long a probe result is reused by `GET /v1/providers` (doctor always probes afresh). */
const PROBE_CACHE_MS = 15_000;

/** What every model looks like right now: breaker, recent errors, key, rate limit, reachability. */
@Injectable()
export class ProviderStatusService {
  private readonly probes = new Map<string, { at: number; result: ProbeResult; provider: object }>();

  constructor(
    private readonly registry: ProviderRegistry,
    private readonly config: ConfigService,
    private readonly breakers: CircuitBreakerRegistry,
    private readonly limits: RateLimitTracker,
  ) {}

  async report(options: { probe: boolean; fresh?: boolean; timeoutMs?: number } = { probe: true }): Promise<ProvidersReport> {
    const models = this.registry.all();
    const probes = options.probe
      ? await Promise.all(models.map((m) => this.probe(m, options.fresh ?? false, options.timeoutMs ?? 3000)))
      : models.map(() => undefined);
    return { models: models.map((m, i) => this.statusOf(m, probes[i])), misconfigured: this.registry.misconfigured() };
  }

  private async probe(m: RegisteredModel, fresh: boolean, timeoutMs: number): Promise<ProbeResult> {
    const cached = this.probes.get(m.name);
    if (!fresh && cached && cached.provider === m.provider && Date.now() - cached.at < PROBE_CACHE_MS) return cached.result;
    let result: ProbeResult;
    try {
      result = await m.provider.probe(AbortSignal.timeout(timeoutMs));
    } catch (e) {
      result = { reachable: false, keyRejected: false, latencyMs: timeoutMs, error: (e as Error).message };
    }
    this.probes.set(m.name, { at: Date.now(), result, provider: m.provider });
    return result;
  }

  private statusOf(m: RegisteredModel, reachability: ProbeResult | undefined): ModelStatus {
    const { providers } = this.config.get();
    const breaker = this.breakers.for(m.name);
    const stats = breaker.stats();
    const probeAt = breaker.probeAt;
    const rl = this.limits.snapshot(m.name, m.config.limits);
    const auth = breaker.lastAuthFailure;
    const iso = (t: number) => new Date(t).toISOString();
    return {
      name: m.name,
      kind: m.kind,
      provider: m.config.provider,
      model: m.provider.model,
      endpoint: endpointOf(m),
      role: providers.primary === m.name ? 'primary' : providers.fallback.includes(m.name) ? 'fallback' : 'none',
      keySet: m.keySet,
      keyRequired: m.keyRequired,
      keyRejected: !!reachability?.keyRejected || !!auth,
      breaker: { state: breaker.state, ...(probeAt !== undefined ? { probeAt: iso(probeAt) } : {}) },
      recent: { windowSec: ERROR_RATE_WINDOW_MS / 1000, calls: stats.calls, failures: stats.failures, errorRate: round(stats.errorRate) },
      rateLimit: {
        rpm: m.config.limits?.rpm,
        tpm: m.config.limits?.tpm,
        requestsLastMinute: rl.requestsLastMinute,
        tokensLastMinute: rl.tokensLastMinute,
        remainingRequests: rl.remainingRequests,
        remainingTokens: rl.remainingTokens,
        ...(rl.blockedUntil !== undefined ? { blockedUntil: iso(rl.blockedUntil) } : {}),
      },
      ...(auth ? { lastAuthFailure: { at: iso(auth.at), status: auth.status, message: auth.message } } : {}),
      ...(reachability ? { reachability } : {}),
    };
  }
}

const round = (x: number) => Math.round(x * 1000) / 1000;

const NATIVE_DEFAULTS: Record<string, string> = {
  anthropic: 'https://api.anthropic.com',
  gemini: 'https://generativelanguage.googleapis.com',
  ollama: 'http://127.0.0.1:11434',
};

function endpointOf(m: RegisteredModel): string {
  const url = m.config.base_url || OPENAI_COMPATIBLE_PRESETS[m.config.provider]?.baseUrl || NATIVE_DEFAULTS[m.config.provider] || '';
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return u.toString().replace(/\/$/, '');
  } catch {
    return url;
  }
}
