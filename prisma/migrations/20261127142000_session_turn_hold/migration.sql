-- One turn at a time per session across replicas (issue 24 item 2, docs/adr/0016-scale-out-session-turns.md).
-- The replica running a turn of a session holds the session row: taken by the statement that opens
-- the turn, released by the one that closes it (a plain turn pays no extra round trip). A hold of a
-- dead replica (nestclaw_replica_alive) is free to take. A replica whose waiter found the session
-- busy stands next in line (turn_next) for 2 s after each ask, so a release goes to the earliest
-- waiter rather than to whichever replica's statement comes first.
ALTER TABLE "sessions"
  ADD COLUMN "turn_replica" TEXT,
  ADD COLUMN "turn_id" UUID,
  ADD COLUMN "turn_since" TIMESTAMPTZ(3),
  ADD COLUMN "turn_next" TEXT,
  ADD COLUMN "turn_next_at" TIMESTAMPTZ(3);

-- A release with a replica waiting wakes the waiters at once (their poll is the fallback). Releases
-- nobody waits for (nearly all) notify nobody: NOTIFY serialises committing transactions.
CREATE FUNCTION "nestclaw_wake_session_turns"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('nestclaw_session_turns', '');
  RETURN NULL;
END $$;

CREATE TRIGGER "session_released_wakes_waiters" AFTER UPDATE ON "sessions"
  FOR EACH ROW WHEN (OLD."turn_replica" IS NOT NULL AND NEW."turn_replica" IS NULL AND NEW."turn_next" IS NOT NULL)
  EXECUTE FUNCTION "nestclaw_wake_session_turns"();
