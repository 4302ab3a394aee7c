-- Job and heartbeat output delivered to a chat (issue 13). A run keeps its answer until it is
-- delivered; the delivery is leased (delivery_due_at) so a crash between the answer and the send is
-- retried by the next tick of any gateway, and its outbound rows (job_run_id) make a retry edit or
-- skip what was already sent instead of sending it again. Heartbeats are one system job per agent
-- (kind 'heartbeat'), so their runs, spend and replies use the same rows.

ALTER TABLE "scheduled_jobs" ADD COLUMN "kind" TEXT NOT NULL DEFAULT 'job';

ALTER TABLE "job_runs" ADD COLUMN "output" TEXT,
ADD COLUMN "delivery_attempts" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN "delivery_due_at" TIMESTAMPTZ(3),
ADD COLUMN "delivered_at" TIMESTAMPTZ(3);
CREATE INDEX "job_runs_delivery_due_at_idx" ON "job_runs"("delivery_due_at");

ALTER TABLE "outbound_messages" ADD COLUMN "job_run_id" BIGINT;
CREATE INDEX "outbound_messages_job_run_id_idx" ON "outbound_messages"("job_run_id");

-- Subagent runs: the parent → child link, and what a session's subagents have started and spent,
-- read back when a new one is asked for (limits that survive a restart).
CREATE TABLE "subagent_runs" (
    "id" UUID NOT NULL,
    "parent_session_id" TEXT NOT NULL,
    "child_session_id" TEXT NOT NULL,
    "agent_id" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),
    "input_tokens" INTEGER NOT NULL DEFAULT 0,
    "output_tokens" INTEGER NOT NULL DEFAULT 0,
    "cost_usd" DECIMAL(16,8) NOT NULL DEFAULT 0,
    CONSTRAINT "subagent_runs_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "subagent_runs_parent_session_id_idx" ON "subagent_runs"("parent_session_id");
