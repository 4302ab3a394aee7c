import type { ToolContext } from '../tool.port';

export interface PreToolUseEvent {
  ctx: ToolContext;
  tool: string;
  input: unknown;
}
/** Block the call (the model is told why) or replace its input. */
export type PreToolUseDecision = { block: string } | { input: unknown } | void;

export interface PostToolUseEvent extends PreToolUseEvent {
  output: string;
  isError: boolean;
}
/** A replacement output (e.g. with secrets redacted). */
export type PostToolUseDecision = { output: string } | void;

export interface UserPromptSubmitEvent {
  sessionId: string;
  agentId: string;
  prompt: string;
}
export type UserPromptSubmitDecision = { block: string } | { prompt: string } | void;

export interface SessionEvent {
  sessionId: string;
  agentId: string;
}

/** Before older messages of a session are summarised (a hook may archive them elsewhere). */
export interface PreCompactEvent extends SessionEvent {
  reason: 'budget' | 'manual' | 'context_length';
  /** The message range about to be summarised (inclusive). */
  fromSeq: number;
  toSeq: number;
}

/** A subagent started with `spawn` ended (any outcome). */
export interface SubagentStopEvent extends SessionEvent {
  /** The child's own session. */
  childSessionId: string;
  childAgentId: string;
  status: 'ok' | 'error' | 'cancelled' | 'timeout';
  durationMs: number;
}

export interface HookMap {
  PreToolUse: (e: PreToolUseEvent) => PreToolUseDecision | Promise<PreToolUseDecision>;
  PostToolUse: (e: PostToolUseEvent) => PostToolUseDecision | Promise<PostToolUseDecision>;
  UserPromptSubmit: (e: UserPromptSubmitEvent) => UserPromptSubmitDecision | Promise<UserPromptSubmitDecision>;
  SessionStart: (e: SessionEvent) => void | Promise<void>;
  SessionEnd: (e: SessionEvent) => void | Promise<void>;
  PreCompact: (e: PreCompactEvent) => void | Promise<void>;
  SubagentStop: (e: SubagentStopEvent) => void | Promise<void>;
}
export type HookName = keyof HookMap;
