import { z } from 'zod';
import { duration } from './field-types';

/** Long-term memory (issue 11): Postgres is the truth, the on-disk hybrid index is derived from it. */
export const memorySchema = z
  .object({
    enabled: z.boolean().default(true),
    /** The derived index's directory (default `$NESTCLAW_HOME/memory-index`); deleting it triggers a rebuild. */
    index_dir: z.string().optional(),
    /**
     * Where chunks are indexed and searched: `builtin` (LanceDB + in-process keyword index under `index_dir`) or
     * `plugin:<id>`, a store a trusted plugin registers (docs/plugins.md). Either way Postgres stays the truth.
     */
    store: z
      .string()
      .regex(/^(builtin|plugin:[a-z][a-z0-9-]{0,39})$/, { message: 'builtin or plugin:<id>' })
      .default('builtin'),
    /** Handed to the plugin store's `create(settings)` (ignored by the built-in store). */
    store_settings: z.record(z.string(), z.unknown()).default({}),
    /** A `kind: embedding` model; unset = the first one configured; none = keyword-only. */
    embedding_model: z.string().optional(),
    /** Budget of the embedding call made while recalling; past it the query runs keyword-only. */
    embedding_timeout: duration.default(200),
    recall: z
      .object({
        /** Memories put into a turn's prompt, at most. */
        top_k: z.number().int().min(1).max(50).default(5),
        /** Token budget of the recalled-memories prompt section. */
        max_tokens: z.number().int().min(50).max(8000).default(800),
        /** The whole recall inside a turn; on timeout the turn goes on without memories. */
        timeout: duration.default(150),
        mode: z.enum(['keyword', 'vector', 'hybrid']).default('hybrid'),
      })
      .prefault({}),
    fusion: z
      .object({
        /** Reciprocal Rank Fusion constant: score = Σ weight / (k + rank). */
        k: z.number().positive().default(60),
        keyword_weight: z.number().min(0).default(1),
        /** 0.5: keyword ranks lead; with equal weights hybrid MRR fell below keyword-only at 100k chunks (ADR 0011). */
        vector_weight: z.number().min(0).default(0.5),
        /** Candidates taken from each leg before fusing. */
        candidates: z.number().int().min(1).max(1000).default(50),
      })
      .prefault({}),
    chunk: z
      .object({
        tokens: z.number().int().min(32).max(4000).default(400),
        overlap: z.number().int().min(0).max(1000).default(80),
      })
      .prefault({}),
    worker: z
      .object({
        /** false: this process never drains index_queue (another process does; tests hold the index back with it). */
        enabled: z.boolean().default(true),
        /** Shortest time between two passes: writes woken within it reach the index as one batch (one table version). */
        interval: duration.default(200),
        batch: z.number().int().min(1).max(10_000).default(512),
        /** Failures after which a queue entry is parked (shown by /doctor) instead of retried. */
        max_attempts: z.number().int().min(1).max(100).default(5),
        backoff_base: duration.default(1000),
        backoff_max: duration.default(300_000),
      })
      .prefault({}),
    files: z
      .object({
        /** Index MEMORY.md and memory/*.md in each agent's workspace. */
        enabled: z.boolean().default(true),
        /** Whose memories the workspace files are: the workspace belongs to the operator. */
        scope: z.string().min(1).default('owner'),
        scan_interval: duration.default(5_000),
      })
      .prefault({}),
    /** Remember finished turns (user + assistant text), so earlier conversations can be recalled. */
    transcripts: z.boolean().default(true),
  })
  .prefault({});
export type MemoryConfig = z.output<typeof memorySchema>;
