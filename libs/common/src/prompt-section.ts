/**
 * One titled block of the system prompt. Lives here (the lowest lib) so a lib below the agent
 * (memory) can supply a section without importing the agent.
 */
export interface PromptSection {
  /** Stable id, e.g. `bootstrap:SOUL.md`, `context`, `memories`, `skills`. */
  id: string;
  /** Heading shown to the model; omitted for the base identity. */
  title?: string;
  text: string;
}

/** What a turn's prompt is built for; passed to section providers. */
export interface PromptContext {
  agentId: string;
  sessionId: string;
  channel: string;
  /** The message being answered (recall searches with it). */
  message: string;
  signal?: AbortSignal;
}

/**
 * The "recalled memories" slot of the layered prompt: the memory lib implements this and the
 * composition root binds it to RECALLED_MEMORIES. Returning undefined leaves the slot empty.
 * It must answer quickly and never throw for "nothing found".
 */
export interface RecalledMemoryProvider {
  recall(ctx: PromptContext): Promise<PromptSection | undefined>;
}

/** Injection token for the optional RecalledMemoryProvider. */
export const RECALLED_MEMORIES = 'nestclaw:recalled-memories';
