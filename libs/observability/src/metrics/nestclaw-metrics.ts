import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { LABEL as L, METRIC as M } from '../telemetry.names';
import { SECONDS, SHORT_SECONDS, TOKENS } from './buckets';
import { ChannelMetrics } from './channel-metrics';
import { MemoryMetrics, MemorySources } from './memory-metrics';

const BREAKER_STATES = ['closed', 'open', 'half_open'];

/** Gauges whose values are read at scrape time from whoever owns the state (breakers, the pg pool, …). */
export interface GaugeSources extends MemorySources {
  breakers?: () => Iterable<{ model: string; state: string }>;
  pool?: () => { total: number; idle: number; waiting: number };
  migrationsApplied?: () => number;
  activeSessions?: () => number;
}

/**
 * The prom-client registry and every metric nestclaw exports. Only bounded labels: config names
 * (agent, model), code unions (outcome, error code), tool and channel ids. Never a session, user,
 * message or request id: those go to traces and logs.
 */
export class NestclawMetrics {
  readonly registry = new Registry();

  private readonly r = [this.registry];

  readonly turns = new Counter({
    name: M.turns,
    help: 'Turns finished, by outcome',
    labelNames: [L.agent, L.channel, L.outcome],
    registers: this.r,
  });
  readonly turnDuration = new Histogram({
    name: M.turnDuration,
    help: 'Time from a turn starting (after its session queue) to its end',
    labelNames: [L.agent, L.channel],
    buckets: SECONDS,
    registers: this.r,
  });
  readonly turnErrors = new Counter({
    name: M.turnErrors,
    help: 'Turns that failed, by error code',
    labelNames: [L.agent, L.code],
    registers: this.r,
  });
  readonly turnsInFlight = new Gauge({ name: M.turnsInFlight, help: 'Turns running now', labelNames: [L.agent], registers: this.r });
  readonly turnQueueWait = new Histogram({
    name: M.turnQueueWait,
    help: 'Time a turn waited behind earlier turns of the same session',
    labelNames: [L.agent],
    buckets: SHORT_SECONDS,
    registers: this.r,
  });
  readonly activeSessions = new Gauge({
    name: M.activeSessions,
    help: 'Sessions with a turn in the last 5 minutes',
    registers: this.r,
    collect: () => {
      const n = this.sources.activeSessions?.();
      if (n !== undefined) this.activeSessions.set(n);
    },
  });

  readonly opDuration = new Histogram({
    name: M.genAiOperationDuration,
    help: 'GenAI operation duration (one model attempt)',
    labelNames: [L.operation, L.provider, L.model, L.errorType],
    buckets: SECONDS,
    registers: this.r,
  });
  readonly tokenUsage = new Histogram({
    name: M.genAiTokenUsage,
    help: 'GenAI tokens used per model attempt',
    labelNames: [L.operation, L.provider, L.model, L.tokenType],
    buckets: TOKENS,
    registers: this.r,
  });
  readonly timeToFirstChunk = new Histogram({
    name: M.genAiTimeToFirstChunk,
    help: 'Time from sending a streaming request to its first chunk',
    labelNames: [L.provider, L.model],
    buckets: SECONDS,
    registers: this.r,
  });
  readonly modelCalls = new Counter({
    name: M.modelCalls,
    help: 'Model attempts, by outcome (ok, error, cancelled, cached)',
    labelNames: [L.agent, L.provider, L.model, L.outcome, L.errorType],
    registers: this.r,
  });
  readonly modelTokens = new Counter({
    name: M.modelTokens,
    help: 'Tokens billed, by type (input, output, cached_input)',
    labelNames: [L.agent, L.model, L.tokenType],
    registers: this.r,
  });
  readonly modelCost = new Counter({ name: M.modelCost, help: 'Model spend in USD', labelNames: [L.agent, L.model], registers: this.r });
  readonly modelRetries = new Counter({
    name: M.modelRetries,
    help: 'Retries on the same model',
    labelNames: [L.model],
    registers: this.r,
  });
  readonly modelFallbacks = new Counter({
    name: M.modelFallbacks,
    help: 'Moves to the next model in the chain after a failure',
    labelNames: [L.from, L.to, L.reason],
    registers: this.r,
  });
  readonly breakerState = new Gauge({
    name: M.modelBreakerState,
    help: 'Circuit breaker state per model (1 for the current state)',
    labelNames: [L.model, L.state],
    registers: this.r,
    collect: () => this.collectBreakers(),
  });
  readonly rateLimitSkips = new Counter({
    name: M.modelRateLimitSkips,
    help: 'Requests that skipped a model at its client-side rate limit or with its breaker open',
    labelNames: [L.model, L.reason],
    registers: this.r,
  });
  readonly budgetExhausted = new Counter({
    name: M.modelBudgetExhausted,
    help: 'Requests that ran out of their timeout budget',
    labelNames: [L.agent],
    registers: this.r,
  });

  readonly agentSpend = new Gauge({
    name: M.agentSpend,
    help: 'Spend so far in the current UTC day/month',
    labelNames: [L.agent, L.period],
    registers: this.r,
  });
  readonly agentBudget = new Gauge({
    name: M.agentBudget,
    help: 'Configured spend budget per agent',
    labelNames: [L.agent, L.period],
    registers: this.r,
  });
  readonly agentBudgetRefusals = new Counter({
    name: M.agentBudgetRefusals,
    help: 'Turns refused because the agent spent its budget',
    labelNames: [L.agent, L.period],
    registers: this.r,
  });

  readonly heartbeatCapReached = new Counter({
    name: M.heartbeatCapReached,
    help: 'Heartbeats not run because the agent spent its daily heartbeat token cap',
    labelNames: [L.agent],
    registers: this.r,
  });

  readonly toolRuns = new Counter({
    name: M.toolRuns,
    help: 'Tool runs, by outcome (ok, error)',
    labelNames: [L.tool, L.outcome],
    registers: this.r,
  });
  readonly toolRunDuration = new Histogram({
    name: M.toolRunDuration,
    help: 'Tool run duration',
    labelNames: [L.tool],
    buckets: SHORT_SECONDS,
    registers: this.r,
  });
  readonly toolRefusals = new Counter({
    name: M.toolPolicyRefusals,
    help: 'Tool calls refused by policy or hooks',
    labelNames: [L.tool],
    registers: this.r,
  });
  readonly approvalsPending = new Gauge({ name: M.toolApprovalsPending, help: 'Tool approvals waiting for a decision', registers: this.r });
  readonly approvalsDecided = new Counter({
    name: M.toolApprovalsDecided,
    help: 'Tool approvals decided (approved, denied, expired)',
    labelNames: [L.tool, L.decision],
    registers: this.r,
  });
  readonly approvalWait = new Histogram({
    name: M.toolApprovalWait,
    help: 'Time from an approval request to its decision',
    labelNames: [L.tool],
    buckets: [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600],
    registers: this.r,
  });
  readonly toolExecutor = new Gauge({
    name: M.toolExecutor,
    help: 'Sandbox executor tools run in (1 = active)',
    labelNames: [L.executor],
    registers: this.r,
  });

  readonly leaseChanges = new Counter({
    name: M.leaseChanges,
    help: 'Leases this replica acquired or lost (taken by another, self-fenced, released)',
    labelNames: [L.lease, L.change],
    registers: this.r,
  });
  readonly sessionCrossReplicaWait = new Histogram({
    name: M.sessionCrossReplicaWait,
    help: 'Time a turn waited for its session, busy with a turn on another replica (outcome: taken, cancelled, conflict)',
    labelNames: [L.outcome],
    buckets: SHORT_SECONDS,
    registers: this.r,
  });

  readonly poolClients = new Gauge({
    name: M.dbPoolClients,
    help: 'PostgreSQL pool clients by state (in_use, idle)',
    labelNames: [L.state],
    registers: this.r,
    collect: () => this.collectPool(),
  });
  readonly poolWaiting = new Gauge({ name: M.dbPoolWaiting, help: 'Queries waiting for a pool client', registers: this.r });
  readonly migrationsApplied = new Gauge({
    name: M.dbMigrationsApplied,
    help: 'Database migrations applied',
    registers: this.r,
    collect: () => {
      const n = this.sources.migrationsApplied?.();
      if (n !== undefined) this.migrationsApplied.set(n);
    },
  });
  readonly retentionDeleted = new Counter({
    name: M.retentionDeleted,
    help: 'Rows removed by retention jobs',
    labelNames: [L.table],
    registers: this.r,
  });
  readonly buildInfo = new Gauge({
    name: M.buildInfo,
    help: 'Build information (always 1)',
    labelNames: ['version', 'node_version'],
    registers: this.r,
  });

  readonly memory: MemoryMetrics;
  readonly channel: ChannelMetrics;

  constructor(
    version: string,
    readonly sources: GaugeSources = {},
  ) {
    collectDefaultMetrics({ register: this.registry });
    // prom-client names these gauges *_total, which Prometheus reserves for counters (promtool warns).
    for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'])
      this.registry.removeSingleMetric(name);
    this.buildInfo.labels(version, process.version).set(1);
    this.memory = new MemoryMetrics(this.registry, sources);
    this.channel = new ChannelMetrics(this.registry);
    this.approvalsPending.set(0);
  }

  /** Models of the last breaker collect, joined: series are dropped only when the set changes (a config reload). */
  private breakerModels = '';

  private collectBreakers(): void {
    const source = this.sources.breakers;
    if (!source) return;
    const breakers = [...source()];
    const models = breakers.map((b) => b.model).join('\n');
    if (models !== this.breakerModels) this.breakerState.reset();
    this.breakerModels = models;
    for (const { model, state } of breakers) {
      for (const s of BREAKER_STATES) this.breakerState.set({ [L.model]: model, [L.state]: s }, s === state ? 1 : 0);
    }
  }

  private collectPool(): void {
    const p = this.sources.pool?.();
    if (!p) return;
    this.poolClients.labels('in_use').set(p.total - p.idle);
    this.poolClients.labels('idle').set(p.idle);
    this.poolWaiting.set(p.waiting);
  }
}
