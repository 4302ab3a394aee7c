import type { Approval } from '@nestclaw/tool';

/** Who one message to a CLI is for, so its approvals and audit rows name the right session and chat. */
export interface ExchangeScope {
  cli: string;
  /** The transcript session the chat is in (approvals and audit rows point at it). */
  sessionId: string;
  /** Unique per message sent: the approval's turn id. */
  exchangeId: string;
  channel: string;
  endpointId: string;
  signal?: AbortSignal;
  /** A question on the screen became this approval: show it (buttons) where the message came from. */
  onApproval: (a: Approval) => void;
  /** What the CLI is doing now (a tool it runs, the screen's last words), in plain text: the chat's preview. */
  onProgress?: (text: string) => void;
}

/** How one message to a CLI ended. */
export type ExchangeResult =
  | { kind: 'answer'; text: string }
  /** Nothing moved on the screen for the watchdog's time. */
  | { kind: 'silent'; silentMs: number }
  /** The tmux session is gone (the CLI exited or was killed). */
  | { kind: 'dead' };
