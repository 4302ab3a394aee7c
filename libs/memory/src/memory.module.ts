import { Injectable, Logger, Module, OnApplicationBootstrap, OnModuleInit } from '@nestjs/common';
import { join } from 'node:path';
import { ConfigModule, ConfigService } from '@nestclaw/config';
import { DbModule } from '@nestclaw/db';
import { ProviderModule } from '@nestclaw/provider';
import { ToolModule, ToolRegistry } from '@nestclaw/tool';
import { EmbeddingCacheRepository } from './embedding/embedding-cache.repository';
import { MemoryEmbedder } from './embedding/memory-embedder';
import { IndexEntryApplier } from './index/index-entry.applier';
import { IndexFeedCursor } from './index/index-feed.cursor';
import { IndexRowBuilder } from './index/index-rows';
import { IndexStateReader } from './index/index-state';
import { IndexWorker } from './index/index.worker';
import { ActiveIndex } from './index/active-index';
import { LanceIndex } from './index/lance.index';
import { MemorySearchStores } from './index/memory-search-stores.registry';
import { PluginStoreIndex } from './index/plugin-store.index';
import { ReindexService } from './index/reindex.service';
import { MemoryStatusService } from './memory-status.service';
import { MemoryStoreService } from './memory-store.service';
import { MemoryStore, TurnMemory } from './memory.port';
import { IndexQueueRepository } from './queue/index-queue.repository';
import { IndexQueueSignal } from './queue/index-queue.signal';
import { RecallService } from './recall/recall.service';
import { TurnMemoryService } from './recall/turn-memory.service';
import { WorkspaceFilesSource } from './sources/workspace-files.source';
import { MemoryRepository } from './store/memory.repository';
import { MemoryBatchWriter } from './store/memory-batch.writer';
import { MemoryService } from './store/memory.service';
import { MemoryForgetTool, MemoryRecallTool, MemoryStoreTool } from './tools/memory.tools';

/** Opens the index at start-up (rebuilding in the background when needed) and registers the memory tools. */
@Injectable()
export class MemoryLifecycle implements OnModuleInit, OnApplicationBootstrap {
  private readonly logger = new Logger('Memory');

  constructor(
    private readonly config: ConfigService,
    private readonly indexes: ActiveIndex,
    private readonly reindex: ReindexService,
    private readonly tools: ToolRegistry,
    private readonly store: MemoryStore,
    private readonly cursor: IndexFeedCursor,
  ) {}

  onModuleInit(): void {
    this.tools.register(new MemoryStoreTool(this.store));
    this.tools.register(new MemoryRecallTool(this.store));
    this.tools.register(new MemoryForgetTool(this.store));
  }

  async onApplicationBootstrap(): Promise<void> {
    const cfg = this.config.get().memory;
    if (!cfg.enabled) return;
    const dir = cfg.index_dir ?? join(this.config.home, 'memory-index');
    const opened = await this.indexes.open(dir);
    this.cursor.open(opened.cursorDir);
    if (opened.unavailable) return;
    if (!opened.found) this.logger.log(`no ${opened.what}; building it from the database in the background`);
    this.reindex.ensureCurrent();
  }
}

const providers = [
  MemoryRepository,
  IndexQueueRepository,
  EmbeddingCacheRepository,
  MemoryEmbedder,
  LanceIndex,
  PluginStoreIndex,
  MemorySearchStores,
  ActiveIndex,
  IndexRowBuilder,
  ReindexService,
  IndexWorker,
  IndexEntryApplier,
  IndexFeedCursor,
  RecallService,
  MemoryBatchWriter,
  MemoryService,
  TurnMemoryService,
  MemoryStatusService,
  IndexStateReader,
  WorkspaceFilesSource,
  MemoryStoreService,
  { provide: MemoryStore, useExisting: MemoryStoreService },
  { provide: TurnMemory, useExisting: TurnMemoryService },
  { provide: IndexQueueSignal, useExisting: IndexWorker },
  MemoryLifecycle,
];

/** Long-term memory: Postgres truth, index_queue, the derived hybrid index, recall, sources and tools. */
@Module({
  // The scheduler itself (ScheduleModule.forRoot) is the composition root's: one per process.
  imports: [ConfigModule, DbModule, ProviderModule, ToolModule],
  providers,
  exports: [MemoryStore, TurnMemory, MemoryService, RecallService, ReindexService, MemoryStatusService, IndexWorker, MemorySearchStores],
})
export class MemoryModule {}
