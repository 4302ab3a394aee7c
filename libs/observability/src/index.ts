export * from './telemetry.names';
export { telemetry } from './telemetry.state';
export type { TelemetrySettings } from './telemetry.state';
export { NestclawMetrics } from './metrics/nestclaw-metrics';
export { MetricsService } from './metrics/metrics.service';
export type { MetricsScrape } from './metrics/metrics.service';
export { ObservabilityModule } from './observability.module';
export { beginTurn, turnOpened, currentAgent, TurnRecording, recordCrossReplicaWait } from './recorders/turn.recorder';
export type { CrossReplicaWaitOutcome } from './recorders/turn.recorder';
export type { TurnInfo } from './recorders/turn.recorder';
export { recordModelAttempt, recordModelRun, observeBreakerStates } from './recorders/model-call.recorder';
export type { ModelAttempt, AttemptTiming, ModelRun } from './recorders/model-call.recorder';
export {
  startToolRun,
  recordToolRefusal,
  setToolExecutor,
  traceApprovalWait,
  recordApprovalRequested,
  recordApprovalDecided,
  setApprovalsPending,
} from './recorders/tool.recorder';
export {
  traceInbound,
  startChannelSeries,
  recordInbound,
  recordDelivery,
  recordPlatformRateLimited,
  setInboundPending,
  recordLeaseChange,
} from './recorders/channel.recorder';
export type { InboundOutcome, LeaseChange } from './recorders/channel.recorder';
export { observePool, observeMigrations, recordRetentionDeleted } from './recorders/runtime.recorder';
export { recordMemoryRecall, recordEmbeddingCall, recordEmbeddingCacheHits, observeMemoryIndex } from './recorders/memory.recorder';
export type { MemoryRecallMode, EmbeddingPurpose } from './recorders/memory.recorder';
export type { MemoryIndexState } from './metrics/memory-metrics';
export { recordAgentSpend, recordBudgetRefusal } from './recorders/budget.recorder';
export type { BudgetPeriod } from './recorders/budget.recorder';
export { recordHeartbeatCapReached } from './recorders/scheduler.recorder';
export { tracer, activeTraceId } from './tracing/tracer';
export { traceRoot } from './recorders/transport.recorder';
export { startTracing, tracingEnabled } from './tracing/tracing.setup';
export { traceStatement, statementTracer } from './tracing/sql.tracer';
export type { TracingHandle } from './tracing/tracing.setup';
export { PinoNestLogger } from './logging/pino.logger';
export type { PinoLoggerOptions } from './logging/pino.logger';
export { withLogContext, currentLogContext, addToLogContext } from './logging/log-context';
export type { LogContext } from './logging/log-context';
