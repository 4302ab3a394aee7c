-- Timestamped webhooks (docs/webhooks.md, `timestamp_tolerance_s`): the signature covers
-- "<timestamp>.<body>", so two genuine requests never share one. Unique per hook, it refuses a
-- captured request sent again under a new delivery id while its timestamp is still fresh.
-- NULL for hooks that sign the body alone (GitHub), where equal bodies may be distinct deliveries.
ALTER TABLE "webhook_deliveries" ADD COLUMN "signature" TEXT;
CREATE UNIQUE INDEX "webhook_deliveries_hook_id_signature_key" ON "webhook_deliveries"("hook_id", "signature");
