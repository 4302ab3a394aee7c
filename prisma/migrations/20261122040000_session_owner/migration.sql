-- The paired API token that created a session; NULL for the owner and for channel sessions.
-- A paired token may only continue its own sessions.
ALTER TABLE "sessions" ADD COLUMN "principal_id" TEXT;
