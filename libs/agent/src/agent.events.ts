/** What a running turn reports to its transport (SSE, WebSocket, channel). */

export interface TurnUsage {
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

export type AgentEvent =
  /** The user message is committed and the model is about to be called. */
  | { type: 'started'; sessionId: string; turnId: string }
  | { type: 'token'; text: string }
  | { type: 'tool_call'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; id: string; name: string; output: string; isError: boolean }
  /** The run is paused until someone with the approve scope decides (POST /v1/approvals/{id}). */
  | {
      type: 'approval_required';
      approvalId: string;
      tool: string;
      input: unknown;
      /** The call writes a file read into every conversation (bootstrap, memory or skill file). */
      shapesEveryConversation: boolean;
      /** Why, when it does. */
      reason: string | null;
      /** Only the owner may approve it. */
      ownerOnly: boolean;
    }
  | { type: 'done'; sessionId: string; turnId: string; reply: string; usage: TurnUsage; interrupted: boolean };

export type DoneEvent = Extract<AgentEvent, { type: 'done' }>;
