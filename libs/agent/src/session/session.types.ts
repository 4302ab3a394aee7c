import type { LlmCallRecord, ToolCall } from '@nestclaw/provider';
import type { AuditEntry } from '@nestclaw/tool';

export interface StoredMessage {
  seq: number;
  turnId: string;
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  toolCalls: ToolCall[] | null;
  toolCallId: string | null;
  toolName: string | null;
  status: string;
  createdAt: string;
}

/** A compaction record: the summary of a message range (the compaction lib's CompactionRecord). */
export interface StoredSummary {
  id: string;
  stage: 1 | 2;
  fromSeq: number;
  toSeq: number;
  summary: string;
  mergedInto: string | null;
}

export interface NewMessage {
  role: StoredMessage['role'];
  content: string;
  toolCalls?: ToolCall[];
  toolCallId?: string;
  toolName?: string;
  status?: 'ok' | 'interrupted' | 'error';
}

export interface OpenTurn {
  sessionId: string;
  turnId: string;
  agentId: string;
  content: string;
  channel: string;
  endpointId?: string;
  /** Create the session when it does not exist (else an unknown id is reported as missing). */
  create: boolean;
  historyLimit: number;
  /** A paired token's id: it may only continue sessions it created. Absent for the owner and channels. */
  principalId?: string;
  /** The inbound message this turn answers (unique: one user row per message). */
  inboundKey?: string;
  /** This process's replica id: the turn holds the session in its name (one turn per session across replicas). */
  replica: string;
  /** A new message's recall candidates, read by the same statement (`TurnMemory.planRecall`). */
  recall?: { chunkIds: string[]; scope: string; agentId: string };
}

/** Taking a session's hold: taken, or busy with a turn of another (live) replica. */
export type HoldOutcome = { taken: true } | { taken: false; holder: string };

/** A turn already stored for an inbound message (a retry after a crash finds it). */
export interface LinkedTurn {
  sessionId: string;
  turnId: string;
  agentId: string;
  seq: number;
  /** The user row's status: ok | error | interrupted | pending. */
  status: string;
  content: string;
  /** The final answer, when the turn closed with one. */
  reply: string | null;
}

export interface TurnProgress {
  sessionId: string;
  turnId: string;
  messages: NewMessage[];
  calls: LlmCallRecord[];
  /** Audit entries of the turn's tool runs since the last progress statement, written by this one. */
  audit?: AuditEntry[];
  /** Present when the turn ends: the user message leaves `pending` and the reply is logged. */
  close?: { status: 'ok' | 'interrupted' | 'error'; reply: string; channel: string; endpointId?: string };
}

export interface SessionSummary {
  id: string;
  agentId: string;
  channel: string;
  title: string | null;
  messageCount: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  /** A turn of the session is running now (on some replica). */
  running: boolean;
  createdAt: string;
  updatedAt: string;
}

/** Which sessions a list shows: `query` matches an id prefix, the title, or what was said (any language). */
export interface SessionFilter {
  query?: string;
  channel?: string;
  agentId?: string;
}
