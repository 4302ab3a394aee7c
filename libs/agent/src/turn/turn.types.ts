import { NestclawError } from '@nestclaw/common';
import type { AgentConfig } from '@nestclaw/config';
import type { HydratedChunk, TurnRecallPlan } from '@nestclaw/memory';
import type { TurnRecording } from '@nestclaw/observability';
import type { ChatMessage, LlmCallRecord, ToolCall, ToolDefinition } from '@nestclaw/provider';
import type { Approval, AuditEntry, ToolContext } from '@nestclaw/tool';
import type { TurnUsage } from '../agent.events';
import type { TurnInput, TurnResult } from '../agent.types';
import type { LinkedTurn, NewMessage, StoredMessage, StoredSummary } from '../session/session.types';
import type { TurnLedger } from './turn-ledger';

/**
 * The shapes a turn takes as it passes the stages of AgentService (admit → open → prepare → loop →
 * close): each stage takes the previous one's output and returns the next.
 */

/** The channel of a subagent's child turn (SpawnTool). */
export const SUBAGENT_CHANNEL = 'subagent';

/** Thrown when the client leaves while a call waits for approval: the turn stays open to resume later. */
export class TurnDetachedError extends NestclawError {
  constructor() {
    super('cancelled', 'The client went away while a tool call was waiting for approval; the turn resumes when it is decided');
  }
}

/** admit's output: a turn let in, with the agent it runs as. */
export type AdmittedTurn =
  /** A message (HTTP, WebSocket, channel, job, subagent); `recovered` ones may already have a turn. */
  | { kind: 'message'; input: TurnInput & { sessionId: string; agentId: string }; agent: AgentConfig; telemetry?: TurnRecording }
  /** A paused turn whose approval was decided with nobody waiting. */
  | { kind: 'approval'; approval: Approval; agent: AgentConfig };

/** The running turn as every later stage sees it; its ledger writes the turn's progress. */
export interface ActiveTurn extends ToolContext {
  channel: string;
  endpointId?: string;
  agent: AgentConfig;
  ledger: TurnLedger;
}

/** open's output: a turn to prepare, or one whose answer is already settled. */
export type OpenedTurn =
  /** A new message (remembered when answered), with the active summaries its opening statement read. */
  | {
      kind: 'new';
      turn: ActiveTurn;
      message: string;
      history: StoredMessage[];
      summaries: StoredSummary[];
      input: TurnInput;
      /** Its recall, planned before the opening statement and read by it (prepare finishes it without a round trip). */
      recall?: { plan: TurnRecallPlan; rows: HydratedChunk[] };
    }
  /** A retried message run again after a restart, from its first model call. */
  | { kind: 'rerun'; turn: ActiveTurn; message: string; history: StoredMessage[]; input: TurnInput }
  /** A paused turn after its approval, from the step that waited. */
  | { kind: 'resume'; turn: ActiveTurn; message: string; history: StoredMessage[]; at: ResumeAt }
  /** A retried message whose turn finished: its stored answer, nothing sent to the model. */
  | { kind: 'replay'; result: TurnResult }
  /** A retried message cut short after something may have happened: answered with a notice. */
  | { kind: 'notify'; linked: LinkedTurn; input: TurnInput; notice: string; why: string }
  /** A decided approval whose turn can no longer resume (closed, or no such call). */
  | { kind: 'stale' };

/** Where a paused turn resumes: the conversation up to the step that waited, and that step. */
export interface ResumeAt {
  messages: ChatMessage[];
  iteration: number;
  step: StepInput;
}

/** prepare's output: where the model loop starts. */
export interface PreparedTurn {
  turn: ActiveTurn;
  /** The user message the turn answers. */
  message: string;
  messages: ChatMessage[];
  tools: ToolDefinition[];
  iteration: number;
  /** Resuming: finish this step's tool calls before calling the model again. */
  pendingStep?: StepInput;
  /** Summarisation calls made while fitting the window: stored before the first model call, billed with the turn. */
  calls: LlmCallRecord[];
  /** How to refit after a context-length refusal (absent when resuming: the refusal is reported). */
  fit?: TurnFit;
  /** A template reply (greetings, thanks): the loop answers without the model. */
  canned?: string;
  /** Remember the exchange once answered (a new message; not a canned reply, a rerun or a resume). */
  remember: boolean;
}

export interface TurnFit {
  /** Index in `messages` where the current turn starts (what a refit must keep verbatim). */
  turnStart: number;
  /** Summarise everything before the current turn and return the new prefix for `currentTurn`. */
  refit(currentTurn: ChatMessage[], signal?: AbortSignal): Promise<{ messages: ChatMessage[]; calls: LlmCallRecord[]; turnStart: number }>;
}

/** loop's output: how the turn ended, for close to store. */
export type LoopOutcome =
  | {
      status: 'ok';
      reply: string;
      messages: NewMessage[];
      calls: LlmCallRecord[];
      usage: TurnUsage;
      /** A template reply: sent as one token once stored. */
      canned: boolean;
      /** Text streamed to the client, kept if the closing statement fails. */
      streamed: string;
    }
  /** The turn failed or was cancelled: `error` is rethrown once the turn is closed. */
  | { status: 'interrupted' | 'error'; reply: string; messages: NewMessage[]; calls: LlmCallRecord[]; error: unknown };

/** One model response's tool calls. */
export interface StepInput {
  content: string;
  calls: ToolCall[];
  /** LLM call records of the response that asked for these calls, not stored yet. */
  llmCalls: LlmCallRecord[];
  /** Resuming: the assistant message is already stored, with these results. */
  stored?: { results: Map<string, { content: string; isError: boolean }> };
  /** Resuming: the decision for this call. */
  decided?: Approval;
}

export interface StepOutput {
  prompt: ChatMessage[];
  /** Transcript rows, LLM call records and audit entries of the step's tool runs still to be stored. */
  unsaved: NewMessage[];
  llmCalls: LlmCallRecord[];
  audit: AuditEntry[];
}
