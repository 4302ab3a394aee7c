-- Tools: approvals of tool calls, remembered allow rules, audit trail.

CREATE TABLE "tool_approvals" (
    "id" UUID NOT NULL,
    "session_id" TEXT NOT NULL,
    "turn_id" UUID NOT NULL,
    "tool_call_id" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "input" JSONB NOT NULL,
    "match_key" TEXT NOT NULL,
    "agent_id" TEXT NOT NULL,
    "channel" TEXT NOT NULL,
    "endpoint_id" TEXT,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "requested_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "decided_at" TIMESTAMPTZ(3),
    "decided_by" TEXT,
    CONSTRAINT "tool_approvals_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "tool_approvals_status_expires_at_idx" ON "tool_approvals"("status", "expires_at");
CREATE INDEX "tool_approvals_turn_id_idx" ON "tool_approvals"("turn_id");

CREATE TABLE "tool_allow_rules" (
    "id" BIGSERIAL NOT NULL,
    "tool" TEXT NOT NULL,
    "match_key" TEXT NOT NULL,
    "created_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "tool_allow_rules_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "tool_allow_rules_tool_match_key_key" ON "tool_allow_rules"("tool", "match_key");

CREATE TABLE "audit_log" (
    "id" BIGSERIAL NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "actor" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "target" TEXT NOT NULL,
    "outcome" TEXT NOT NULL,
    "duration_ms" INTEGER,
    "session_id" TEXT,
    "detail" JSONB,
    CONSTRAINT "audit_log_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "audit_log_created_at_idx" ON "audit_log"("created_at");
CREATE INDEX "audit_log_action_id_idx" ON "audit_log"("action", "id");
