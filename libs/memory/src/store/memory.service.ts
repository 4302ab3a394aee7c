import { Injectable } from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import { ConfigService } from '@nestclaw/config';
import { memoryError } from '../memory.errors';
import { IndexQueueSignal } from '../queue/index-queue.signal';
import { MemoryBatchWriter } from './memory-batch.writer';
import { chunkText } from '../text/chunker';
import { MemoryRepository } from './memory.repository';
import { MemoryRecord, MemorySource, NewMemory } from './memory.types';

/** Longest memory accepted through the API or a tool (workspace files are chunked without this cap). */
export const MAX_MEMORY_CHARS = 20_000;

export interface StoreInput {
  scope: string;
  agentId: string;
  content: string;
  source: MemorySource;
  metadata?: Record<string, unknown>;
  /** The memory this one replaces (an update of a fact); it must belong to the same person. */
  supersedes?: string;
  sourceKey?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isMemoryId = (id: string) => UUID.test(id);

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * Writes to memory: validates, chunks, commits memory + chunks + queue entry together, and wakes the
 * index worker. Reads by id check the person unless the caller is the owner acting for anyone.
 */
@Injectable()
export class MemoryService {
  constructor(
    private readonly config: ConfigService,
    private readonly memories: MemoryRepository,
    private readonly worker: IndexQueueSignal,
    private readonly batches: MemoryBatchWriter,
  ) {}

  private prepare(input: StoreInput): NewMemory {
    // PostgreSQL text refuses NUL.
    const content = input.content.split('\u0000').join('').trim();
    if (!content) throw memoryError('memory_invalid', 'A memory needs some text (content is empty)');
    if (input.supersedes && !isMemoryId(input.supersedes))
      throw memoryError('memory_invalid', `supersedes must be a memory id (a UUID), got "${input.supersedes}"`);
    const { chunk } = this.config.get().memory;
    const chunks = chunkText(content, { tokens: chunk.tokens, overlap: chunk.overlap }).map((c) => ({
      text: c.text,
      tokenCount: c.tokenCount,
      contentHash: sha256(c.text),
    }));
    return {
      id: randomUUID(),
      scope: input.scope,
      agentId: input.agentId,
      content,
      source: input.source,
      sourceKey: input.sourceKey,
      metadata: input.metadata ?? {},
      supersedes: input.supersedes,
      contentHash: sha256(content),
      chunks,
    };
  }

  async store(input: StoreInput): Promise<string> {
    if (input.content.length > MAX_MEMORY_CHARS)
      throw memoryError('memory_invalid', `A memory is limited to ${MAX_MEMORY_CHARS} characters; split it or put it in a workspace file`);
    const m = this.prepare(input);
    await this.memories.insert(m);
    this.worker.kick();
    return m.id;
  }

  /** Creates or replaces the memory derived from a file or a turn; false when it was unchanged. */
  async replace(input: StoreInput & { sourceKey: string }): Promise<boolean> {
    const changed = await this.memories.replaceBySourceKey({ ...this.prepare(input), sourceKey: input.sourceKey });
    if (changed) this.worker.kick();
    return changed;
  }

  /**
   * Like `replace`, written later with the memories queued in the same few ms (MemoryBatchWriter):
   * for a finished turn, whose reply must not wait for it. Invalid input throws at once.
   */
  replaceLater(input: StoreInput & { sourceKey: string }): void {
    this.batches.add({ ...this.prepare(input), sourceKey: input.sourceKey });
  }

  async forgetSourceKeys(keys: string[]): Promise<number> {
    const n = await this.memories.eraseBySourceKeys(keys);
    if (n) this.worker.kick();
    return n;
  }

  /** `scope` undefined: the owner acting on anyone's memory. */
  async get(id: string, scope: string | undefined): Promise<MemoryRecord> {
    const m = isMemoryId(id) ? await this.memories.findById(id) : undefined;
    if (!m || m.deletedAt || (scope !== undefined && m.scope !== scope)) throw memoryError('memory_not_found', `No memory "${id}"`);
    return m;
  }

  /** A person's memories for one agent, newest first, a page at a time (`before`: the last id of the previous page). */
  async recent(scope: string, agentId: string, limit: number, before?: string): Promise<MemoryRecord[]> {
    if (before !== undefined && !isMemoryId(before))
      throw memoryError('memory_invalid', `before must be a memory id (a UUID), got "${before}"`);
    return this.memories.findRecentOf(scope, agentId, limit, before);
  }

  /**
   * Erases the memory: its text, chunks and cached vectors leave Postgres at once (so recall cannot
   * return it), and the worker then erases its index rows from the files (LanceIndex.apply).
   */
  async forget(id: string, scope: string | undefined): Promise<void> {
    if (!isMemoryId(id) || !(await this.memories.erase(id, scope))) throw memoryError('memory_not_found', `No memory "${id}"`);
    this.worker.kick();
  }
}
