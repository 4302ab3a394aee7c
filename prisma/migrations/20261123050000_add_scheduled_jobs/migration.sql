-- Scheduled jobs (issue 13). A job is claimed for one due time in one transaction that advances
-- next_run_at and inserts its run; (job_id, due_at) is unique, so a due time runs at most once
-- whatever restarts or how many gateways share the database.

CREATE TABLE "scheduled_jobs" (
    "id" UUID NOT NULL,
    "agent_id" TEXT NOT NULL,
    "owner_id" TEXT,
    "session_id" TEXT,
    "schedule" JSONB NOT NULL,
    "message" TEXT NOT NULL,
    "deliver_to" JSONB,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "next_run_at" TIMESTAMPTZ(3),
    "last_run_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "scheduled_jobs_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "scheduled_jobs_next_run_at_idx" ON "scheduled_jobs"("next_run_at");
CREATE INDEX "scheduled_jobs_owner_id_idx" ON "scheduled_jobs"("owner_id");

CREATE TABLE "job_runs" (
    "id" BIGSERIAL NOT NULL,
    "job_id" UUID NOT NULL,
    "due_at" TIMESTAMPTZ(3) NOT NULL,
    "status" TEXT NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),
    "session_id" TEXT,
    "turn_id" UUID,
    "error" TEXT,
    "input_tokens" INTEGER NOT NULL DEFAULT 0,
    "output_tokens" INTEGER NOT NULL DEFAULT 0,
    "cost_usd" DECIMAL(16,8) NOT NULL DEFAULT 0,
    CONSTRAINT "job_runs_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "job_runs_job_id_fkey" FOREIGN KEY ("job_id") REFERENCES "scheduled_jobs"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "job_runs_job_id_due_at_key" ON "job_runs"("job_id", "due_at");
CREATE INDEX "job_runs_status_idx" ON "job_runs"("status");
