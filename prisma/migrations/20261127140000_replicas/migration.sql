-- Replicas (issue 24, docs/adr/0016-scale-out.md). Every gateway process sharing the database keeps a
-- row here, written at start and every 2 s (ReplicaRegistry), deleted when it stops cleanly. A row
-- not seen for 6 s is a dead replica: the leases, session turns and inbound messages it held are
-- free to take. The row's id is new on every start, so a restarted process never inherits its
-- predecessor's holds by accident.
CREATE TABLE "replicas" (
  "id"         TEXT NOT NULL,
  "host"       TEXT NOT NULL,
  "pid"        INTEGER NOT NULL,
  "version"    TEXT NOT NULL,
  "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "last_seen"  TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  CONSTRAINT "replicas_pkey" PRIMARY KEY ("id")
);

-- Whether a replica is alive: seen within the last 6 s. The one definition every hold uses
-- (stale leases, busy sessions, interrupted turns), so the rule cannot drift between them.
CREATE FUNCTION "nestclaw_replica_alive"(replica TEXT) RETURNS BOOLEAN LANGUAGE sql STABLE AS $$
  SELECT EXISTS (SELECT 1 FROM "replicas" r WHERE r."id" = replica AND r."last_seen" > now() - interval '6 seconds')
$$;
