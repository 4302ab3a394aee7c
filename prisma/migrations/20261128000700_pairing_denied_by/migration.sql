-- Who turned a channel pairing request down, and when (docs/security.md). Kept on the request's own
-- row, next to approved_at, so the owner's list of denied requests is one read of one table; the
-- approver is on the allowlist row it creates (channel_allowlist.added_by). Denying still ends the
-- code (expires_at = now()); NULL for requests that were never denied.
ALTER TABLE "channel_pairing_codes" ADD COLUMN "denied_at" TIMESTAMPTZ(3), ADD COLUMN "denied_by" TEXT;
