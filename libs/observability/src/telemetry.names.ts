/**
 * Every metric, span and attribute name nestclaw exports, in one place: dashboards, alert rules and
 * tests read these, so a rename here is a rename everywhere (test/e2e/observability checks that
 * nothing under deploy/ names a metric missing from this file).
 *
 * GenAI names follow the OpenTelemetry GenAI semantic conventions. `@opentelemetry/semantic-conventions`
 * marks them deprecated (moved to a separate GenAI repository), so they live here rather than being
 * imported. In Prometheus the dots become underscores and the unit is appended.
 */
export const METRIC = {
  // Turns (one user message through the agent loop)
  turns: 'nestclaw_turns_total',
  turnDuration: 'nestclaw_turn_duration_seconds',
  turnErrors: 'nestclaw_turn_errors_total',
  turnsInFlight: 'nestclaw_turns_in_flight',
  turnQueueWait: 'nestclaw_turn_queue_wait_seconds',
  activeSessions: 'nestclaw_active_sessions',

  // Model calls: GenAI conventions where one exists
  genAiOperationDuration: 'gen_ai_client_operation_duration_seconds',
  genAiTokenUsage: 'gen_ai_client_token_usage',
  genAiTimeToFirstChunk: 'gen_ai_client_operation_time_to_first_chunk_seconds',
  modelCalls: 'nestclaw_model_calls_total',
  modelTokens: 'nestclaw_model_tokens_total',
  modelCost: 'nestclaw_model_cost_usd_total',
  modelRetries: 'nestclaw_model_retries_total',
  modelFallbacks: 'nestclaw_model_fallbacks_total',
  modelBreakerState: 'nestclaw_model_breaker_state',
  modelRateLimitSkips: 'nestclaw_model_rate_limit_skips_total',
  modelBudgetExhausted: 'nestclaw_model_timeout_budget_exhausted_total',

  // Spend budgets (per agent, from the llm_calls ledger)
  agentSpend: 'nestclaw_agent_spend_usd',
  agentBudget: 'nestclaw_agent_budget_usd',
  agentBudgetRefusals: 'nestclaw_agent_budget_refusals_total',

  // Scheduler and heartbeat
  heartbeatCapReached: 'nestclaw_heartbeat_cap_reached_total',

  // Tools
  toolRuns: 'nestclaw_tool_runs_total',
  toolRunDuration: 'nestclaw_tool_run_duration_seconds',
  toolPolicyRefusals: 'nestclaw_tool_policy_refusals_total',
  toolApprovalsPending: 'nestclaw_tool_approvals_pending',
  toolApprovalsDecided: 'nestclaw_tool_approvals_decided_total',
  toolApprovalWait: 'nestclaw_tool_approval_wait_seconds',
  toolExecutor: 'nestclaw_tool_executor_info',

  // Channels
  channelInbound: 'nestclaw_channel_inbound_total',
  channelDeliveryDuration: 'nestclaw_channel_delivery_duration_seconds',
  channelDeliveryFailures: 'nestclaw_channel_delivery_failures_total',
  channelRateLimited: 'nestclaw_channel_platform_rate_limited_total',
  channelInboundPending: 'nestclaw_channel_inbound_pending',

  // Cluster (issue 24): leases taken and lost by this replica
  leaseChanges: 'nestclaw_lease_changes_total',
  sessionCrossReplicaWait: 'nestclaw_session_cross_replica_wait_seconds',

  // Runtime and database
  dbPoolClients: 'nestclaw_db_pool_clients',
  dbPoolWaiting: 'nestclaw_db_pool_waiting_requests',
  dbMigrationsApplied: 'nestclaw_db_migrations_applied',
  retentionDeleted: 'nestclaw_retention_deleted_rows_total',
  buildInfo: 'nestclaw_build_info',

  // Long-term memory (libs/memory)
  memoryRecallDuration: 'nestclaw_memory_recall_duration_seconds',
  memoryRecallZeroHits: 'nestclaw_memory_recall_zero_hits_total',
  memoryEmbeddingCalls: 'nestclaw_memory_embedding_calls_total',
  memoryEmbeddingErrors: 'nestclaw_memory_embedding_errors_total',
  memoryEmbeddingCacheHits: 'nestclaw_memory_embedding_cache_hits_total',
  memoryIndexQueueDepth: 'nestclaw_memory_index_queue_depth',
  memoryIndexQueueOldest: 'nestclaw_memory_index_queue_oldest_pending_seconds',
  memoryKeywordOnly: 'nestclaw_memory_keyword_only',
} as const;

/** Node.js runtime metrics from prom-client's defaults that dashboards and alerts use. */
export const RUNTIME_METRIC = {
  rss: 'process_resident_memory_bytes',
  cpu: 'process_cpu_seconds_total',
  heapUsed: 'nodejs_heap_size_used_bytes',
  eventLoopLagP99: 'nodejs_eventloop_lag_p99_seconds',
  gc: 'nodejs_gc_duration_seconds',
} as const;

/** Label names. Values are always from a bounded set: config names, code unions, tool names. */
export const LABEL = {
  agent: 'agent',
  channel: 'channel',
  outcome: 'outcome',
  code: 'code',
  provider: 'provider',
  model: 'model',
  tool: 'tool',
  errorType: 'error_type',
  tokenType: 'token_type',
  from: 'from',
  to: 'to',
  reason: 'reason',
  state: 'state',
  decision: 'decision',
  executor: 'executor',
  period: 'period',
  table: 'table',
  operation: 'operation',
  /** Memory recall mode that ran: keyword, vector, hybrid. */
  mode: 'mode',
  /** What an embedding was for: query (recall) or index (the worker, a rebuild). */
  purpose: 'purpose',
  /** A lease's name (`channel:telegram`). */
  lease: 'lease',
  /** What happened to a lease here: acquired, lost (taken, fenced or released). */
  change: 'change',
} as const;

export const SPAN = {
  httpRequest: 'http.request',
  wsMessage: 'ws.message',
  channelInbound: 'channel.inbound',
  /** GenAI: "invoke_agent {agent}" */
  turn: 'invoke_agent',
  /** GenAI: "chat {model}" per model attempt */
  modelAttempt: 'chat',
  /** GenAI: "execute_tool {tool}" */
  toolRun: 'execute_tool',
  approvalWait: 'tool.approval_wait',
  /** "pg.query:{verb}" per SQL statement inside a traced request or turn */
  sqlStatement: 'pg.query',
} as const;

/** OpenTelemetry GenAI span attributes (plus a few of ours under `nestclaw.`). */
export const ATTR = {
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  requestModel: 'gen_ai.request.model',
  responseModel: 'gen_ai.response.model',
  usageInputTokens: 'gen_ai.usage.input_tokens',
  usageOutputTokens: 'gen_ai.usage.output_tokens',
  usageCachedInputTokens: 'gen_ai.usage.cache_read.input_tokens',
  conversationId: 'gen_ai.conversation.id',
  agentName: 'gen_ai.agent.name',
  toolName: 'gen_ai.tool.name',
  tokenType: 'gen_ai.token.type',
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
  errorType: 'error.type',
  turnId: 'nestclaw.turn.id',
  channel: 'nestclaw.channel',
  attempt: 'nestclaw.attempt',
  fallback: 'nestclaw.fallback',
  costUsd: 'nestclaw.cost_usd',
  approvalDecision: 'nestclaw.approval.decision',
  toolOutcome: 'nestclaw.tool.outcome',
  dbSystem: 'db.system.name',
  dbOperation: 'db.operation.name',
  dbQueryText: 'db.query.text',
  dbQuerySummary: 'db.query.summary',
} as const;

/** Response header carrying the trace id of the request's turn. */
export const TRACE_ID_HEADER = 'x-trace-id';
