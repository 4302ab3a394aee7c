-- Inbound webhooks (issue 27, docs/webhooks.md). One row per accepted delivery: its primary key,
-- (hook, delivery id), is what refuses a replay, in the database and so across restarts and
-- replicas. The row names the turn started for it and the job run (of the hook's system job,
-- scheduled_jobs.kind = 'webhook') that carries its answer to a chat through the scheduler's
-- exactly-once delivery.
CREATE TABLE "webhook_deliveries" (
  "hook_id"     TEXT NOT NULL,
  "delivery_id" TEXT NOT NULL,
  "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "session_id"  TEXT NOT NULL,
  "turn_id"     UUID NOT NULL,
  "job_run_id"  BIGINT,
  CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("hook_id", "delivery_id")
);
CREATE INDEX "webhook_deliveries_received_at_idx" ON "webhook_deliveries"("received_at");
