import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestclaw/config';
import { MemoryScope, MemoryStore } from './memory.port';
import { RecallMode, RecallOutcome, RecallService } from './recall/recall.service';
import { MemoryService } from './store/memory.service';
import type { MemorySource } from './store/memory.types';

/** The MemoryStore port over the store and recall services. */
@Injectable()
export class MemoryStoreService extends MemoryStore {
  constructor(
    private readonly config: ConfigService,
    private readonly memories: MemoryService,
    private readonly recaller: RecallService,
  ) {
    super();
  }

  store(
    content: string,
    o: { scope: MemoryScope; source: MemorySource; metadata?: Record<string, unknown>; supersedes?: string },
  ): Promise<string> {
    return this.memories.store({
      scope: o.scope.person,
      agentId: o.scope.agentId,
      content,
      source: o.source,
      metadata: o.metadata,
      supersedes: o.supersedes,
    });
  }

  recall(query: string, o: { scope: MemoryScope; topK?: number; mode?: RecallMode }): Promise<RecallOutcome> {
    return this.recaller.recall({
      scope: o.scope.person,
      agentId: o.scope.agentId,
      query,
      topK: o.topK ?? this.config.get().memory.recall.top_k,
      mode: o.mode,
    });
  }

  forget(id: string, scope?: MemoryScope): Promise<void> {
    return this.memories.forget(id, scope?.person);
  }
}
