import type { RecallMode, RecallOutcome, RecallPlan } from './recall/recall.service';
import type { TurnIdentity } from './scope/person-scope';
import type { HydratedChunk, MemorySource } from './store/memory.types';

/** Whose memories: a person (see person-scope.ts) with one agent. */
export interface MemoryScope {
  person: string;
  agentId: string;
}

/** Long-term memory as other modules see it. */
export abstract class MemoryStore {
  abstract store(
    content: string,
    options: { scope: MemoryScope; source: MemorySource; metadata?: Record<string, unknown>; supersedes?: string },
  ): Promise<string>;
  abstract recall(query: string, options: { scope: MemoryScope; topK?: number; mode?: RecallMode }): Promise<RecallOutcome>;
  /** `scope` undefined: the owner forgetting anyone's memory. */
  abstract forget(id: string, scope?: MemoryScope): Promise<void>;
}

export interface TurnRecallInput {
  /** From `personOf`; undefined = nobody we can tell, so nothing is recalled. */
  person: string | undefined;
  agentId: string;
  message: string;
  /** The recent history already in the prompt: recalled text from it is not repeated. */
  history: readonly { turnId: string; content: string }[];
}

export interface FinishedTurn {
  person: string | undefined;
  agentId: string;
  sessionId: string;
  turnId: string;
  user: string;
  assistant: string;
}

/**
 * A new turn's recall, planned before its opening statement: that statement reads the candidates
 * (`recalledChunksSql` with `chunkIds`, `scope`, `agentId`) and `recallFromPlan` turns the rows into the prompt section.
 */
export interface TurnRecallPlan {
  scope: string;
  agentId: string;
  /** Empty: nothing matches, nothing to read. */
  chunkIds: string[];
  plan: RecallPlan;
}

/** The small port the agent loop calls around each turn. Never throws, never blocks past its budget. */
export abstract class TurnMemory {
  abstract personOf(identity: TurnIdentity): string | undefined;
  /** The recall a new turn's opening statement can read for it, or undefined (then `recallForTurn` does it all). */
  abstract planRecall(input: Omit<TurnRecallInput, 'history'>): TurnRecallPlan | undefined;
  /** `recallForTurn` finished from the rows the opening statement read for a plan. */
  abstract recallFromPlan(plan: TurnRecallPlan, rows: readonly HydratedChunk[], history: TurnRecallInput['history']): string | undefined;
  /** A delimited prompt section with the memories relevant to the message, or undefined. */
  abstract recallForTurn(input: TurnRecallInput): Promise<string | undefined>;
  /** Remembers a finished turn in the background. */
  abstract rememberTurn(turn: FinishedTurn): void;
}
