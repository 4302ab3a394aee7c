-- `forget` now erases (issue 22): a forgotten memory leaves no text behind. Memories forgotten
-- before kept theirs (soft delete, `deleted_at` set); they are erased here the same way: their
-- chunks (by cascade), the cached vectors no remaining chunk shares, and the memory itself. The
-- index rows they had are erased by a rebuild of the index (index schema 4).
DELETE FROM memory_embeddings v
 WHERE EXISTS (SELECT 1 FROM memory_chunks c JOIN memories m ON m.id = c.memory_id
                WHERE m.deleted_at IS NOT NULL AND c.content_hash = v.content_hash)
   AND NOT EXISTS (SELECT 1 FROM memory_chunks c JOIN memories m ON m.id = c.memory_id
                    WHERE m.deleted_at IS NULL AND c.content_hash = v.content_hash);
DELETE FROM memories WHERE deleted_at IS NOT NULL;
