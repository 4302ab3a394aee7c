-- Leases (issue 24, docs/adr/0016-scale-out.md, "Channel connections: leases"). A lease names one
-- piece of work only one replica may do at a time (`channel:telegram`: polling that bot). Its holder
-- renews it every beat (2 s) for 6 s; another replica may take it once it expired or its holder is
-- dead (nestclaw_replica_alive), and every change of holder increments `fence`, so whoever acted
-- under an older fence can tell it was superseded. A released lease keeps its row (holder NULL), so
-- the fence never goes back.
CREATE TABLE "leases" (
  "name"        TEXT NOT NULL,
  "holder"      TEXT,
  "fence"       BIGINT NOT NULL DEFAULT 0,
  "acquired_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "expires_at"  TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  CONSTRAINT "leases_pkey" PRIMARY KEY ("name")
);

-- The replica answering an inbound message. Recovery after a crash takes over only rows whose
-- replica is dead, never one another live replica is answering right now.
ALTER TABLE "inbound_messages" ADD COLUMN "replica_id" TEXT;
