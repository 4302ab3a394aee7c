-- Summaries of older conversation (issue 12). The transcript is never rewritten: a compaction
-- covers the message range [from_seq, to_seq] of its session. Stage 1 summarises messages; stage 2
-- merges consecutive stage-1 summaries (which then point at it through merged_into), so no
-- message is summarised more than twice.

CREATE TABLE "compactions" (
    "id" BIGSERIAL NOT NULL,
    "session_id" TEXT NOT NULL,
    "stage" SMALLINT NOT NULL,
    "from_seq" INTEGER NOT NULL,
    "to_seq" INTEGER NOT NULL,
    "summary" TEXT NOT NULL,
    "merged_into" BIGINT,
    "model_calls" INTEGER NOT NULL DEFAULT 0,
    "input_tokens" INTEGER NOT NULL DEFAULT 0,
    "output_tokens" INTEGER NOT NULL DEFAULT 0,
    "cost_usd" DECIMAL(16,8) NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "compactions_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "compactions_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "compactions_merged_into_fkey" FOREIGN KEY ("merged_into") REFERENCES "compactions"("id") ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT "compactions_stage_check" CHECK ("stage" IN (1, 2)),
    CONSTRAINT "compactions_range_check" CHECK ("from_seq" <= "to_seq")
);
CREATE INDEX "compactions_session_id_to_seq_idx" ON "compactions"("session_id", "to_seq");
