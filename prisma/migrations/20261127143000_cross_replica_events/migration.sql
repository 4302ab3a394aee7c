-- Cancels, approvals and live session events across replicas (issue 24, docs/adr/0016-scale-out.md,
-- "Cancels, approvals and live events: LISTEN/NOTIFY"). Events carry ids only; a subscriber reads
-- the rest from the tables. Each is sent by a trigger in the statement that makes the change, so the
-- turn pays no extra round trip, and at commit, so nobody hears of a change it cannot read yet.

-- The replica whose process asked for the approval and may continue the paused turn once it is
-- decided; NULL once that continuation is taken (by it, by the deciding replica in the same UPDATE,
-- or by any replica once the asker is dead). Taking it is a conditional UPDATE: exactly once.
ALTER TABLE "tool_approvals" ADD COLUMN "waiting_replica" TEXT;

-- A turn opened (its user message stored as pending, or reopened) and closed (that row settled).
CREATE FUNCTION "nestclaw_turn_event"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('nestclaw_session_events', json_build_object(
    'kind', CASE WHEN NEW."status" = 'pending' THEN 'turn_started' ELSE 'turn_finished' END,
    'sessionId', NEW."session_id", 'turnId', NEW."turn_id", 'status', NEW."status")::text);
  RETURN NULL;
END $$;

CREATE TRIGGER "turn_opened_notifies" AFTER INSERT ON "messages"
  FOR EACH ROW WHEN (NEW."role" = 'user' AND NEW."status" = 'pending')
  EXECUTE FUNCTION "nestclaw_turn_event"();
CREATE TRIGGER "turn_reopened_or_closed_notifies" AFTER UPDATE OF "status" ON "messages"
  FOR EACH ROW WHEN (NEW."role" = 'user' AND OLD."status" IS DISTINCT FROM NEW."status" AND (OLD."status" = 'pending' OR NEW."status" = 'pending'))
  EXECUTE FUNCTION "nestclaw_turn_event"();

-- An approval asked for, and decided (or expired). The decision also goes to `approval_decided`,
-- naming the replica that still has to continue the turn (NULL: already taken).
CREATE FUNCTION "nestclaw_approval_event"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('nestclaw_session_events', json_build_object(
    'kind', CASE WHEN NEW."status" = 'pending' THEN 'approval_pending' ELSE 'approval_decided' END,
    'sessionId', NEW."session_id", 'turnId', NEW."turn_id", 'approvalId', NEW."id", 'status', NEW."status")::text);
  IF NEW."status" <> 'pending' THEN
    PERFORM pg_notify('nestclaw_approval_decided', json_build_object(
      'approvalId', NEW."id", 'waitingReplica', NEW."waiting_replica")::text);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER "approval_requested_notifies" AFTER INSERT ON "tool_approvals"
  FOR EACH ROW EXECUTE FUNCTION "nestclaw_approval_event"();
CREATE TRIGGER "approval_decided_notifies" AFTER UPDATE OF "status" ON "tool_approvals"
  FOR EACH ROW WHEN (OLD."status" = 'pending' AND NEW."status" <> 'pending')
  EXECUTE FUNCTION "nestclaw_approval_event"();
