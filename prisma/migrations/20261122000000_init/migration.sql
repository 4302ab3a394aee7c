-- Foundation: sessions, transcript, conversation log, checkpoints, LLM call ledger.

CREATE TABLE "sessions" (
    "id" TEXT NOT NULL,
    "agent_id" TEXT NOT NULL,
    "channel" TEXT NOT NULL,
    "title" TEXT,
    "last_seq" INTEGER NOT NULL DEFAULT 0,
    "input_tokens" BIGINT NOT NULL DEFAULT 0,
    "output_tokens" BIGINT NOT NULL DEFAULT 0,
    "cost_usd" DECIMAL(16,8) NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "sessions_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "sessions_updated_at_idx" ON "sessions"("updated_at");

CREATE TABLE "messages" (
    "id" BIGSERIAL NOT NULL,
    "session_id" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "turn_id" UUID NOT NULL,
    "role" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "tool_calls" JSONB,
    "tool_call_id" TEXT,
    "tool_name" TEXT,
    "status" TEXT NOT NULL DEFAULT 'ok',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "messages_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "messages_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "messages_session_id_seq_key" ON "messages"("session_id", "seq");
CREATE INDEX "messages_status_idx" ON "messages"("status");

CREATE TABLE "conversation_log" (
    "id" BIGSERIAL NOT NULL,
    "direction" TEXT NOT NULL,
    "channel" TEXT NOT NULL,
    "endpoint_id" TEXT,
    "session_id" TEXT,
    "content" TEXT NOT NULL,
    "checkpoint_id" BIGINT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "conversation_log_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "conversation_log_session_id_id_idx" ON "conversation_log"("session_id", "id");
CREATE INDEX "conversation_log_created_at_idx" ON "conversation_log"("created_at");

CREATE TABLE "checkpoints" (
    "id" BIGSERIAL NOT NULL,
    "session_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "summary" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "checkpoints_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "checkpoints_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "checkpoints_session_id_id_idx" ON "checkpoints"("session_id", "id");

CREATE TABLE "llm_calls" (
    "id" BIGSERIAL NOT NULL,
    "session_id" TEXT,
    "turn_id" UUID,
    "provider" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL DEFAULT 1,
    "is_fallback" BOOLEAN NOT NULL DEFAULT false,
    "input_tokens" INTEGER NOT NULL DEFAULT 0,
    "output_tokens" INTEGER NOT NULL DEFAULT 0,
    "cached_input_tokens" INTEGER NOT NULL DEFAULT 0,
    "cost_usd" DECIMAL(16,8) NOT NULL DEFAULT 0,
    "latency_ms" INTEGER NOT NULL,
    "status" TEXT NOT NULL,
    "error_code" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "llm_calls_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "llm_calls_created_at_idx" ON "llm_calls"("created_at");
CREATE INDEX "llm_calls_session_id_idx" ON "llm_calls"("session_id");
