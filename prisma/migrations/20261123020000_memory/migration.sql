-- Long-term memory (libs/memory): the source of truth for the derived search index.
-- index_queue rows are written in the same transaction as the change they describe; a worker
-- drains them into the on-disk index, which can always be rebuilt from these tables.

CREATE TABLE "memories" (
    "id" UUID NOT NULL,
    -- the person: "owner", "token:<id>", a linked identity, or "<channel>:<sender>"
    "scope" TEXT NOT NULL,
    "agent_id" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    -- tool | api | file | transcript | summary
    "source" TEXT NOT NULL,
    -- stable identity of a derived memory (a workspace file, a turn), so re-ingesting replaces it
    "source_key" TEXT,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "supersedes" UUID,
    "superseded_at" TIMESTAMPTZ(3),
    "content_hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMPTZ(3),
    CONSTRAINT "memories_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "memories_source_check" CHECK ("source" IN ('tool', 'api', 'file', 'transcript', 'summary'))
);
CREATE UNIQUE INDEX "memories_source_key_key" ON "memories"("source_key");
CREATE INDEX "memories_scope_agent_id_created_at_idx" ON "memories"("scope", "agent_id", "created_at");

CREATE TABLE "memory_chunks" (
    "id" BIGSERIAL NOT NULL,
    "memory_id" UUID NOT NULL,
    "seq" INTEGER NOT NULL,
    "text" TEXT NOT NULL,
    "token_count" INTEGER NOT NULL,
    "content_hash" TEXT NOT NULL,
    CONSTRAINT "memory_chunks_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "memory_chunks_memory_id_fkey" FOREIGN KEY ("memory_id") REFERENCES "memories"("id") ON DELETE CASCADE
);
CREATE UNIQUE INDEX "memory_chunks_memory_id_seq_key" ON "memory_chunks"("memory_id", "seq");

-- Embeddings by (model, content hash): the store of vectors and the cache that makes a reindex free.
CREATE TABLE "memory_embeddings" (
    "model" TEXT NOT NULL,
    "content_hash" TEXT NOT NULL,
    "dims" INTEGER NOT NULL,
    "vector" REAL[] NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "memory_embeddings_pkey" PRIMARY KEY ("model", "content_hash")
);

CREATE TABLE "index_queue" (
    "id" BIGSERIAL NOT NULL,
    "memory_id" UUID NOT NULL,
    -- upsert | delete
    "op" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_error" TEXT,
    -- set after too many failures: the entry waits for an operator (visible in /doctor)
    "parked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "index_queue_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "index_queue_next_attempt_at_idx" ON "index_queue"("next_attempt_at");
