-- Exactly-once channel turns and billing across kill -9 (issue 8).

-- The inbound message a user turn answers (e.g. "telegram:42"): at most one user row per key, so a
-- retried turn resumes or replaces its own row instead of storing the message again.
ALTER TABLE "messages" ADD COLUMN "inbound_key" TEXT;
CREATE UNIQUE INDEX "messages_inbound_key_key" ON "messages"("inbound_key");

-- Delivery intent: a row is written (status 'sending') before the platform call that may create a
-- message, then becomes 'preview' (placeholder / streaming text) or 'sent' (final text). A 'sending'
-- row found after a crash whose send cannot be repeated safely becomes 'orphaned'.
ALTER TABLE "outbound_messages" ADD COLUMN "status" TEXT NOT NULL DEFAULT 'sent';

-- llm_calls rows are now written when an attempt starts (status 'started') and completed when it
-- ends; rows left 'started' by a crash become 'interrupted' at the next start.
