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

/** A chunk as the index needs it (from Postgres): search columns and what keys its embedding. */
export interface IndexableChunk {
  chunkId: string;
  memoryId: string;
  scope: string;
  agentId: string;
  text: string;
  contentHash: string;
}

/** A recall candidate re-read from the truth. */
export interface HydratedChunk extends IndexableChunk {
  source: MemorySource;
  sourceKey: string | null;
  superseded: boolean;
  createdAt: string;
}
