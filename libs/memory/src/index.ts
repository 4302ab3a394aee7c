export * from './memory.port';
export * from './memory.module';
export { MemoryService } from './store/memory.service';
export type { StoreInput } from './store/memory.service';
export type { MemoryRecord, MemorySource } from './store/memory.types';
export { RecallService } from './recall/recall.service';
export type { RecallHit, RecallMode, RecallOutcome, RecallPlan, RecallQuery } from './recall/recall.service';
export { recalledChunksSql } from './store/memory.repository';
export type { HydratedChunk } from './store/memory.types';
export { ReindexService } from './index/reindex.service';
export type { ReindexProgress } from './index/reindex.service';
export { MemoryStatusService } from './memory-status.service';
export type { MemoryStatus, PersonMemoryStatus } from './memory-status.service';
export { IndexWorker } from './index/index.worker';
export { MEMORY_EMBEDDER_OVERRIDE } from './embedding/memory-embedder';
export type { ActiveEmbedder } from './embedding/memory-embedder';
export { OWNER_SCOPE, personOf, tokenScope } from './scope/person-scope';
export type { TurnIdentity } from './scope/person-scope';
export { SECTION_CLOSE, SECTION_OPEN } from './recall/prompt-section';
export { queryTerms } from './text/tokenizer';
export { MemorySearchStores } from './index/memory-search-stores.registry';
export type {
  MemorySearchChunk,
  MemorySearchHit,
  MemorySearchQuery,
  MemorySearchStore,
  MemorySearchStoreDefinition,
  MemorySearchStoreSettings,
} from './index/memory-search-store.port';
