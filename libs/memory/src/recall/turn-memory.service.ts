import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestclaw/config';
import { FinishedTurn, TurnMemory, TurnRecallInput, TurnRecallPlan } from '../memory.port';
import { personOf, TurnIdentity } from '../scope/person-scope';
import { MemoryService } from '../store/memory.service';
import type { HydratedChunk } from '../store/memory.types';
import { memorySection, notInHistory } from './prompt-section';
import { RecallService } from './recall.service';

/** Share of the recall budget the query embedding may use, so a slow embedder still leaves time for keywords. */
const EMBEDDING_SHARE = 0.6;

/**
 * Memory around a turn: recall before the model call (bounded by `memory.recall.timeout`; on
 * timeout or any error the turn goes on without memories) and remembering the finished turn.
 */
@Injectable()
export class TurnMemoryService extends TurnMemory {
  private readonly logger = new Logger('Memory');
  /** Why the last recall in a turn came back empty or keyword-only (for status and /doctor). */
  lastFallback: { at: string; reason: string } | undefined;

  constructor(
    private readonly config: ConfigService,
    private readonly recall: RecallService,
    private readonly memories: MemoryService,
  ) {
    super();
  }

  personOf(identity: TurnIdentity): string | undefined {
    return personOf(identity, this.config.get().session.identity_links);
  }

  planRecall(input: Omit<TurnRecallInput, 'history'>): TurnRecallPlan | undefined {
    const cfg = this.config.get().memory;
    if (!cfg.enabled || !input.person || !input.message.trim()) return undefined;
    try {
      const plan = this.recall.plan({ scope: input.person, agentId: input.agentId, query: input.message, topK: cfg.recall.top_k * 2 });
      return plan && { scope: input.person, agentId: input.agentId, chunkIds: plan.chunkIds, plan };
    } catch (e) {
      this.noteFallback(`recall failed: ${(e as Error).message}`);
      return undefined;
    }
  }

  recallFromPlan(plan: TurnRecallPlan, rows: readonly HydratedChunk[], history: TurnRecallInput['history']): string | undefined {
    const cfg = this.config.get().memory;
    try {
      const outcome = this.recall.finish(plan.plan, rows);
      if (outcome.fallback) this.noteFallback(outcome.fallback);
      return memorySection(notInHistory(outcome.results, history).slice(0, cfg.recall.top_k), cfg.recall.max_tokens);
    } catch (e) {
      this.noteFallback(`recall failed: ${(e as Error).message}`);
      return undefined;
    }
  }

  async recallForTurn(input: TurnRecallInput): Promise<string | undefined> {
    const cfg = this.config.get().memory;
    if (!cfg.enabled || !input.person || !input.message.trim()) return undefined;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), cfg.recall.timeout)));
    try {
      const outcome = await Promise.race([
        this.recall.recall({
          scope: input.person,
          agentId: input.agentId,
          query: input.message,
          topK: cfg.recall.top_k * 2,
          embeddingBudgetMs: Math.min(cfg.embedding_timeout, Math.floor(cfg.recall.timeout * EMBEDDING_SHARE)),
        }),
        timeout,
      ]);
      if (outcome === 'timeout') {
        this.noteFallback(`recall took longer than ${cfg.recall.timeout} ms; the turn went on without memories`);
        return undefined;
      }
      if (outcome.fallback) this.noteFallback(outcome.fallback);
      const fresh = notInHistory(outcome.results, input.history).slice(0, cfg.recall.top_k);
      return memorySection(fresh, cfg.recall.max_tokens);
    } catch (e) {
      this.noteFallback(`recall failed: ${(e as Error).message}`);
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  }

  rememberTurn(turn: FinishedTurn): void {
    const cfg = this.config.get().memory;
    if (!cfg.enabled || !cfg.transcripts || !turn.person || !turn.user.trim() || !turn.assistant.trim()) return;
    try {
      // Batched with other finished turns, off the reply's path (one statement per batch).
      this.memories.replaceLater({
        scope: turn.person,
        agentId: turn.agentId,
        content: `User: ${turn.user}\nAssistant: ${turn.assistant}`,
        source: 'transcript',
        sourceKey: `transcript:${turn.turnId}`,
        metadata: { sessionId: turn.sessionId, turnId: turn.turnId },
      });
    } catch (e) {
      this.logger.warn(`could not remember turn ${turn.turnId}: ${(e as Error).message}`);
    }
  }

  private noteFallback(reason: string): void {
    this.lastFallback = { at: new Date().toISOString(), reason };
  }
}
