import { GaugeSources, NestclawMetrics } from './metrics/nestclaw-metrics';

export interface TelemetrySettings {
  metrics: boolean;
  /** Record prompts and replies on spans (gen_ai.input/output.messages). Off by default. */
  captureContent: boolean;
  version: string;
}

/**
 * The process-wide telemetry state the recording ports write to. A module singleton rather than an
 * injected service so other libs record with one call at their seams (no constructor changes), and
 * so a disabled metrics pipeline costs one property read per call. ObservabilityModule sets it from
 * config at start-up.
 */
class TelemetryState {
  metrics?: NestclawMetrics;
  captureContent = false;
  /** Set by the owners of the state (breaker registry, pg pool) whenever they start, before or after configure. */
  readonly sources: GaugeSources = {};

  configure(settings: TelemetrySettings): void {
    this.captureContent = settings.captureContent;
    if (settings.metrics && !this.metrics) this.metrics = new NestclawMetrics(settings.version, this.sources);
    if (!settings.metrics) this.metrics = undefined;
  }

  /** Starts the per-agent and per-model series at zero, so rate() and dashboards see them before the first event. */
  preinitialize(agents: string[], models: string[]): void {
    const m = this.metrics;
    if (!m) return;
    for (const a of agents) {
      m.turnsInFlight.labels(a).set(0);
      m.budgetExhausted.labels(a).inc(0);
      for (const p of ['day', 'month']) m.agentBudgetRefusals.labels(a, p).inc(0);
    }
    for (const model of models) {
      m.modelRetries.labels(model).inc(0);
      for (const r of ['circuit_open', 'rate_limit']) m.rateLimitSkips.labels(model, r).inc(0);
    }
  }
}

export const telemetry = new TelemetryState();
