-- The message a bound CLI is on, written before it is typed: after a crash the bridge reads its answer
-- from the screen instead of typing it a second time (issue 26, exactly once across kill -9).
ALTER TABLE "cli_bindings" ADD COLUMN "in_flight" JSONB;
