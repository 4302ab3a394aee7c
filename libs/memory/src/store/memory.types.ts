export type MemorySource = 'tool' | 'api' | 'file' | 'transcript' | 'summary';
export const MEMORY_SOURCES: readonly MemorySource[] = ['tool', 'api', 'file', 'transcript', 'summary'];

export interface MemoryRecord {
  id: string;
  scope: string;
  agentId: string;
  content: string;
  source: MemorySource;
  sourceKey: string | null;
  metadata: Record<string, unknown>;
  supersedes: string | null;
  superseded: boolean;
  createdAt: string;
  updatedAt: string;
  deletedAt: string | null;
}

export interface NewChunk {
  text: string;
  tokenCount: number;
  contentHash: string;
}

export interface NewMemory {
  id: string;
  scope: string;
  agentId: string;
  content: string;
  source: MemorySource;
  sourceKey?: string;
  metadata: Record<string, unknown>;
  supersedes?: string;
  contentHash: string;
  chunks: NewChunk[];
}

/** A chunk as the index needs it (from Postgres). */
export interface IndexableChunk {
  chunkId: string;
  memoryId: string;
  scope: string;
  agentId: string;
  text: string;
  contentHash: string;
  source: MemorySource;
  sourceKey: string | null;
  /** Milliseconds since the epoch. */
  createdAt: number;
  superseded: boolean;
}

/** A recall candidate re-read from the truth. */
export interface HydratedChunk extends Omit<IndexableChunk, 'createdAt'> {
  createdAt: string;
}
