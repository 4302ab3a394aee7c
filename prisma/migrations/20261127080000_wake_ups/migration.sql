-- Wake-ups instead of polling (issue 23, docs/adr/0014-wake-ups.md). The statement that writes work
-- for a background loop also notifies it: a trigger calls pg_notify inside that statement, so the
-- writer pays no extra round trip and every gateway listening on the database (one LISTEN
-- connection each, DatabaseNotifications) wakes. A notification is sent at commit, and identical
-- ones within a transaction are sent once.

CREATE FUNCTION "nestclaw_wake_memory_index"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('nestclaw_memory_index', '');
  RETURN NULL;
END $$;

CREATE FUNCTION "nestclaw_wake_scheduled_jobs"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('nestclaw_scheduled_jobs', '');
  RETURN NULL;
END $$;

-- A memory change queued for the index; or parked entries given another chance (nestclaw doctor).
-- The worker's own claims and failures move next_attempt_at later and do not wake anyone.
CREATE TRIGGER "index_queue_wakes_worker" AFTER INSERT ON "index_queue"
  FOR EACH STATEMENT EXECUTE FUNCTION "nestclaw_wake_memory_index"();
CREATE TRIGGER "index_queue_unparked_wakes_worker" AFTER UPDATE ON "index_queue"
  FOR EACH ROW WHEN (OLD."parked_at" IS NOT NULL AND NEW."parked_at" IS NULL)
  EXECUTE FUNCTION "nestclaw_wake_memory_index"();

-- A job added, or moved to an earlier due time, or enabled again: the schedulers look again and
-- re-arm their due-time timers. A claim moves next_run_at later and wakes nobody.
CREATE TRIGGER "scheduled_job_added_wakes_scheduler" AFTER INSERT ON "scheduled_jobs"
  FOR EACH ROW WHEN (NEW."kind" = 'job' AND NEW."enabled")
  EXECUTE FUNCTION "nestclaw_wake_scheduled_jobs"();
CREATE TRIGGER "scheduled_job_due_sooner_wakes_scheduler" AFTER UPDATE ON "scheduled_jobs"
  FOR EACH ROW WHEN (NEW."kind" = 'job' AND NEW."enabled" AND (NOT OLD."enabled" OR NEW."next_run_at" < OLD."next_run_at"))
  EXECUTE FUNCTION "nestclaw_wake_scheduled_jobs"();
