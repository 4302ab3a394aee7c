-- Providers: answers kept for idempotent replay of non-streaming model requests (TTL in expires_at).

CREATE TABLE "llm_idempotency" (
    "key" TEXT NOT NULL,
    "model_name" TEXT NOT NULL,
    "response" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "llm_idempotency_pkey" PRIMARY KEY ("key")
);
CREATE INDEX "llm_idempotency_expires_at_idx" ON "llm_idempotency"("expires_at");
