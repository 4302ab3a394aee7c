import type { InterruptedTurnPolicy } from './turn/interrupted-turn.recovery';
import type { ChatMessage } from '@nestclaw/provider';
import type { AgentEvent, TurnUsage } from './agent.events';
import type { PromptMode } from './prompt/system-prompt.builder';

export interface TurnInput {
  message: string;
  sessionId?: string;
  agentId?: string;
  /** Where the message came from: http, sse, ws, openai, cli, telegram, … */
  channel: string;
  endpointId?: string;
  /** Create `sessionId` if it does not exist (OpenAI-compatible clients pick their own ids). */
  createSession?: boolean;
  /** Earlier conversation supplied by the client (stateless OpenAI-style calls); not stored. */
  context?: ChatMessage[];
  /** Paired API token making the request (absent for the owner and channels): scopes session access. */
  principalId?: string;
  /**
   * The inbound message this turn answers (channels: `<channel>:<inbound id>`). One turn per key: a
   * retry (`recovered`) of a message already answered returns the stored answer without calling the
   * model; one interrupted mid-way runs again in place of the unfinished attempt.
   */
  inboundKey?: string;
  /** The message may have been handled by an earlier process: look for its turn first. */
  recovered?: boolean;
  /** A recovered turn whose model request may already have left: answer with a notice, or ask again (default). */
  interruptedTurns?: InterruptedTurnPolicy;
  /** The new turn's id, chosen by the caller (a webhook answers 202 with it before the turn opens); default: a fresh one. */
  turnId?: string;
  /** Override the agent's prompt mode (subagents and cheap tasks use `minimal`). */
  promptMode?: PromptMode;
}

export interface TurnOptions {
  signal?: AbortSignal;
  /** Stream tokens from the model (events arrive through onEvent either way). */
  stream?: boolean;
  onEvent?: (event: AgentEvent) => void;
}

export interface CompactResult {
  sessionId: string;
  /** Messages newly covered by a summary. */
  summarisedMessages: number;
  /** Summaries merged into one (stage 2). */
  mergedSummaries: number;
  usage: TurnUsage;
}

export interface TurnResult {
  sessionId: string;
  turnId: string;
  reply: string;
  usage: TurnUsage;
  interrupted: boolean;
  /** The stored answer of a turn that had already finished (nothing was sent to the model). */
  replayed?: boolean;
}
