-- The memory index on every replica (issue 24, docs/adr/0016-scale-out.md). `index_queue` was a queue:
-- one worker claimed an entry and deleted it, so with several replicas each change reached one
-- replica's index only. It becomes an ordered change feed that every index reads with a cursor of
-- its own (by id); an entry is deleted once every index that counts has passed it.
--
-- A reader going by id must never pass an id whose lower neighbour commits later. So writers take
-- the feed's lock before their entries get ids, and hold it to commit: ids are handed out in commit
-- order. The lock is taken by a trigger in the writing statement (no extra round trip, no writer can
-- forget it); memory writes are short autocommit statements, so the wait is a commit at most.
CREATE FUNCTION "nestclaw_index_feed_order"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('nestclaw:index_feed'));
  RETURN NULL;
END $$;
CREATE TRIGGER "index_queue_in_commit_order" BEFORE INSERT ON "index_queue"
  FOR EACH STATEMENT EXECUTE FUNCTION "nestclaw_index_feed_order"();

-- Where each local index (one per gateway home, named by a key file in its directory) has read to.
-- A cursor not moved for a day whose replica is not alive stops holding entries back: that index
-- rebuilds when its replica returns (it finds its cursor below the feed's horizon).
CREATE TABLE "index_cursors" (
  "index_key"  TEXT NOT NULL,
  "replica_id" TEXT NOT NULL,
  "position"   BIGINT NOT NULL,
  "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  CONSTRAINT "index_cursors_pkey" PRIMARY KEY ("index_key")
);

-- The last entry deleted from the feed: an index whose cursor is below it may have missed changes.
CREATE TABLE "index_feed" (
  "id"          INTEGER NOT NULL DEFAULT 1,
  "pruned_upto" BIGINT NOT NULL DEFAULT 0,
  CONSTRAINT "index_feed_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "index_feed_one_row" CHECK ("id" = 1)
);
INSERT INTO "index_feed" ("id") VALUES (1);
