import { Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { EventEmitter } from 'node:events';
import { isDeepStrictEqual } from 'node:util';
import { ConfigService, HotSection, ModelConfig, NestclawConfig, Reconfigurable } from '@nestclaw/config';
import { observeBreakerStates } from '@nestclaw/observability';
import { Clock } from './clock';
import { BreakerSettings, ERROR_RATE_BUCKETS, ERROR_RATE_WINDOW_MS, ModelBreaker } from './model-breaker';

/**
 * One circuit breaker per configured model, created on first use. Threshold and reset interval
 * are read from `providers.circuit_breaker` on every decision, so a config reload applies at once;
 * a model whose own config changed (a new key, a new URL) starts over with a closed breaker.
 */
@Injectable()
export class CircuitBreakerRegistry implements Reconfigurable, OnModuleInit, OnModuleDestroy {
  private readonly breakers = new Map<string, ModelBreaker>();
  /** Rotates every breaker's rolling stats window from the clock instead of an interval timer. */
  private readonly rotate = new EventEmitter().setMaxListeners(0);
  private lastRotation: number;
  private models: Record<string, ModelConfig>;

  constructor(
    private readonly config: ConfigService,
    private readonly clock: Clock,
  ) {
    this.lastRotation = clock.now();
    this.models = config.get().models;
    observeBreakerStates(() => [...this.breakers].map(([model, b]) => ({ model, state: b.state })));
  }

  private settings = (): BreakerSettings => {
    const cb = this.config.get().providers.circuit_breaker;
    return { threshold: cb.threshold, resetIntervalMs: cb.reset_interval };
  };

  private tick(): void {
    const bucketMs = ERROR_RATE_WINDOW_MS / ERROR_RATE_BUCKETS;
    const now = this.clock.now();
    const n = Math.floor((now - this.lastRotation) / bucketMs);
    if (n <= 0) return;
    this.lastRotation += n * bucketMs;
    for (let i = 0; i < Math.min(n, ERROR_RATE_BUCKETS); i++) this.rotate.emit('rotate');
  }

  for(name: string): ModelBreaker {
    this.tick();
    let b = this.breakers.get(name);
    if (!b) {
      b = new ModelBreaker(name, this.clock, this.settings, this.rotate);
      this.breakers.set(name, b);
    }
    return b;
  }

  reconfigure(config: NestclawConfig, changed: readonly HotSection[]): void {
    if (!changed.includes('models')) return;
    for (const [name, b] of this.breakers) {
      if (!isDeepStrictEqual(this.models[name], config.models[name])) {
        b.dispose();
        this.breakers.delete(name);
      }
    }
    this.models = config.models;
  }

  onModuleInit(): void {
    this.config.register(this);
  }

  onModuleDestroy(): void {
    for (const b of this.breakers.values()) b.dispose();
    this.breakers.clear();
  }
}
