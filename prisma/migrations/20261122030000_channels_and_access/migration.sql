-- Channels and access: durable inbound queue (unique per platform message), outbound send record,
-- session pointers per routing key, channel allowlist + pairing codes, paired API tokens (hashed),
-- API pairing codes (hashed) and security events (pairing lockout).

CREATE TABLE "inbound_messages" (
    "id" BIGSERIAL NOT NULL,
    "channel" TEXT NOT NULL,
    "platform_message_id" TEXT NOT NULL,
    "chat_id" TEXT NOT NULL,
    "sender_id" TEXT NOT NULL,
    "session_key" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'received',
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "answered_at" TIMESTAMPTZ(3),
    CONSTRAINT "inbound_messages_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "inbound_messages_channel_platform_message_id_key" ON "inbound_messages"("channel", "platform_message_id");
CREATE INDEX "inbound_messages_status_idx" ON "inbound_messages"("status");

CREATE TABLE "outbound_messages" (
    "id" BIGSERIAL NOT NULL,
    "channel" TEXT NOT NULL,
    "chat_id" TEXT NOT NULL,
    "inbound_id" BIGINT,
    "part" INTEGER NOT NULL DEFAULT 0,
    "kind" TEXT NOT NULL,
    "platform_message_id" TEXT,
    "content" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "outbound_messages_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "outbound_messages_inbound_id_idx" ON "outbound_messages"("inbound_id");
CREATE INDEX "outbound_messages_channel_chat_id_idx" ON "outbound_messages"("channel", "chat_id");

CREATE TABLE "channel_sessions" (
    "session_key" TEXT NOT NULL,
    "session_id" TEXT NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "channel_sessions_pkey" PRIMARY KEY ("session_key")
);

CREATE TABLE "channel_allowlist" (
    "channel" TEXT NOT NULL,
    "sender_id" TEXT NOT NULL,
    "display_name" TEXT,
    "added_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "channel_allowlist_pkey" PRIMARY KEY ("channel", "sender_id")
);

CREATE TABLE "channel_pairing_codes" (
    "id" BIGSERIAL NOT NULL,
    "channel" TEXT NOT NULL,
    "code" TEXT NOT NULL,
    "sender_id" TEXT NOT NULL,
    "sender_name" TEXT,
    "chat_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "approved_at" TIMESTAMPTZ(3),
    CONSTRAINT "channel_pairing_codes_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "channel_pairing_codes_channel_code_key" ON "channel_pairing_codes"("channel", "code");
CREATE INDEX "channel_pairing_codes_channel_sender_id_idx" ON "channel_pairing_codes"("channel", "sender_id");

CREATE TABLE "api_tokens" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "scopes" TEXT[] NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),
    CONSTRAINT "api_tokens_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "api_tokens_token_hash_key" ON "api_tokens"("token_hash");

CREATE TABLE "api_pairing_codes" (
    "id" BIGSERIAL NOT NULL,
    "code_hash" TEXT NOT NULL,
    "scopes" TEXT[] NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "used_at" TIMESTAMPTZ(3),
    CONSTRAINT "api_pairing_codes_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "api_pairing_codes_code_hash_key" ON "api_pairing_codes"("code_hash");

CREATE TABLE "security_events" (
    "id" BIGSERIAL NOT NULL,
    "kind" TEXT NOT NULL,
    "subject" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "security_events_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "security_events_kind_created_at_idx" ON "security_events"("kind", "created_at");
