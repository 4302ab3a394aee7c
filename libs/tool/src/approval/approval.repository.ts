import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { mapDatabaseError, DatabaseService } from '@nestclaw/db';
import type { Approval, ApprovalStatus, NewApproval } from './approval.types';

interface Row {
  id: string;
  session_id: string;
  turn_id: string;
  tool_call_id: string;
  tool: string;
  input: unknown;
  match_key: string;
  agent_id: string;
  channel: string;
  endpoint_id: string | null;
  shapes_every_conversation: boolean;
  reason: string | null;
  owner_only: boolean;
  status: ApprovalStatus;
  requested_at: Date;
  expires_at: Date;
  decided_at: Date | null;
  decided_by: string | null;
}

const toApproval = (r: Row): Approval => ({
  id: r.id,
  sessionId: r.session_id,
  turnId: r.turn_id,
  toolCallId: r.tool_call_id,
  tool: r.tool,
  input: r.input,
  matchKey: r.match_key,
  agentId: r.agent_id,
  channel: r.channel,
  endpointId: r.endpoint_id,
  shapesEveryConversation: r.shapes_every_conversation,
  reason: r.reason,
  ownerOnly: r.owner_only,
  status: r.status,
  requestedAt: r.requested_at.toISOString(),
  expiresAt: r.expires_at.toISOString(),
  decidedAt: r.decided_at?.toISOString() ?? null,
  decidedBy: r.decided_by,
});

/** Approvals and remembered allow rules (tables tool_approvals, tool_allow_rules). */
@Injectable()
export class ApprovalRepository {
  constructor(private readonly db: DatabaseService) {}

  private async q<T extends object>(sql: string, params: unknown[]): Promise<T[]> {
    try {
      return (await this.db.pool.query<T>(sql, params)).rows;
    } catch (e) {
      throw mapDatabaseError(e);
    }
  }

  async create(a: NewApproval, timeoutMs: number): Promise<Approval> {
    const rows = await this.q<Row>(
      `INSERT INTO tool_approvals (id, session_id, turn_id, tool_call_id, tool, input, match_key, agent_id, channel, endpoint_id,
                                   shapes_every_conversation, reason, owner_only, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $12, $13, $14, now() + ($11::int * interval '1 millisecond')) RETURNING *`,
      [
        randomUUID(),
        a.sessionId,
        a.turnId,
        a.toolCallId,
        a.tool,
        JSON.stringify(a.input ?? null),
        a.matchKey,
        a.agentId,
        a.channel,
        a.endpointId,
        timeoutMs,
        a.shapesEveryConversation ?? false,
        a.reason ?? null,
        a.ownerOnly ?? false,
      ],
    );
    return toApproval(rows[0]);
  }

  async findById(id: string): Promise<Approval | null> {
    const rows = await this.q<Row>(`SELECT * FROM tool_approvals WHERE id = $1`, [id]);
    return rows[0] ? toApproval(rows[0]) : null;
  }

  async listByStatus(status: ApprovalStatus | undefined, limit: number): Promise<Approval[]> {
    const rows = await this.q<Row>(
      `SELECT * FROM tool_approvals WHERE ($1::text IS NULL OR status = $1) ORDER BY requested_at DESC LIMIT $2`,
      [status ?? null, limit],
    );
    return rows.map(toApproval);
  }

  /** Moves a pending approval to its final status; null when it was no longer pending (lost the race). */
  async settle(id: string, status: Exclude<ApprovalStatus, 'pending'>, decidedBy: string): Promise<Approval | null> {
    const rows = await this.q<Row>(
      `UPDATE tool_approvals SET status = $2, decided_at = now(), decided_by = $3 WHERE id = $1 AND status = 'pending' RETURNING *`,
      [id, status, decidedBy],
    );
    return rows[0] ? toApproval(rows[0]) : null;
  }

  async pending(): Promise<Approval[]> {
    return (await this.q<Row>(`SELECT * FROM tool_approvals WHERE status = 'pending' ORDER BY requested_at`, [])).map(toApproval);
  }

  async remember(tool: string, matchKey: string, createdBy: string): Promise<void> {
    await this.q(
      `INSERT INTO tool_allow_rules (tool, match_key, created_by) VALUES ($1, $2, $3) ON CONFLICT (tool, match_key) DO NOTHING`,
      [tool, matchKey, createdBy],
    );
  }

  async isRemembered(tool: string, matchKey: string): Promise<boolean> {
    const rows = await this.q<{ n: number }>(`SELECT 1 AS n FROM tool_allow_rules WHERE tool = $1 AND match_key = $2`, [tool, matchKey]);
    return rows.length > 0;
  }
}
