export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'expired';

export interface Approval {
  id: string;
  sessionId: string;
  turnId: string;
  toolCallId: string;
  tool: string;
  input: unknown;
  /** What a "remember" rule matches exactly: the command for shell, canonical JSON otherwise. */
  matchKey: string;
  agentId: string;
  channel: string;
  endpointId: string | null;
  /** The call writes a file read into every conversation (bootstrap, memory or skill file). */
  shapesEveryConversation: boolean;
  /** Why, for the person deciding (null when it does not). */
  reason: string | null;
  /** The rule that made it wait for a human, in words (null for approvals asked before it was recorded). */
  rule: string | null;
  /** Only the owner may approve it (the turn was not the owner's); anyone allowed to decide may deny. */
  ownerOnly: boolean;
  status: ApprovalStatus;
  requestedAt: string;
  expiresAt: string;
  decidedAt: string | null;
  decidedBy: string | null;
}

export type NewApproval = Pick<
  Approval,
  'sessionId' | 'turnId' | 'toolCallId' | 'tool' | 'input' | 'matchKey' | 'agentId' | 'channel' | 'endpointId'
> &
  Partial<Pick<Approval, 'shapesEveryConversation' | 'reason' | 'ownerOnly' | 'rule'>>;

/** What the run that asked is told. */
export interface ApprovalDecision {
  approval: Approval;
  /** True when a waiting run in this process took the decision; false means the turn must be resumed. */
  delivered: boolean;
}

/** A decision just stored, and who has yet to continue the paused turn. */
export interface SettledApproval {
  approval: Approval;
  /** The replica that asked and still has to take the continuation; null: it is the decider's (taken in the same UPDATE). */
  waitingReplica: string | null;
  /** Whether that replica is alive (a dead one's turn is resumed by whoever finds it). */
  waiterAlive: boolean;
}
