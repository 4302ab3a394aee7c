import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DatabaseService, Prisma, viaPrisma } from '@nestclaw/db';
import type { Approval, ApprovalStatus, NewApproval, SettledApproval } from './approval.types';

type Row = Prisma.ToolApprovalGetPayload<object>;
type SettledRow = Row & { waiterAlive: boolean };

const toApproval = (r: Row): Approval => ({
  id: r.id,
  sessionId: r.sessionId,
  turnId: r.turnId,
  toolCallId: r.toolCallId,
  tool: r.tool,
  input: r.input,
  matchKey: r.matchKey,
  agentId: r.agentId,
  channel: r.channel,
  endpointId: r.endpointId,
  shapesEveryConversation: r.shapesEveryConversation,
  reason: r.reason,
  rule: r.rule,
  ownerOnly: r.ownerOnly,
  status: r.status as ApprovalStatus,
  requestedAt: r.requestedAt.toISOString(),
  expiresAt: r.expiresAt.toISOString(),
  decidedAt: r.decidedAt?.toISOString() ?? null,
  decidedBy: r.decidedBy,
});

/** tool_approvals' columns under the names Prisma gives them, so raw rows and Prisma rows map alike. */
const COLUMNS = `id, session_id AS "sessionId", turn_id AS "turnId", tool_call_id AS "toolCallId", tool, input, match_key AS "matchKey",
  agent_id AS "agentId", channel, endpoint_id AS "endpointId", shapes_every_conversation AS "shapesEveryConversation", reason, rule,
  owner_only AS "ownerOnly", status, requested_at AS "requestedAt", expires_at AS "expiresAt", decided_at AS "decidedAt",
  decided_by AS "decidedBy", waiting_replica AS "waitingReplica"`;

/**
 * Approvals and remembered allow rules (tables tool_approvals, tool_allow_rules). People's side goes
 * through Prisma: listing, finding and remembering. Deciding is one conditional UPDATE (`WHERE status
 * = 'pending'`, so of two deciders exactly one wins) in raw SQL, as it also says who continues the
 * turn (`waiting_replica`, a replica's liveness). Raw pg also stays where a turn or the start-up is:
 * asking (`create`) and `isRemembered` run in a turn's tool step, `pending` at every start; a Prisma
 * query there would load Prisma's query compiler (a WebAssembly module, ~13 MB of RSS) into every
 * gateway, used or not (docs/adr/0008-data-path.md).
 */
@Injectable()
export class ApprovalRepository {
  constructor(private readonly db: DatabaseService) {}

  /** Asked by a turn running on `waitingReplica`, which continues it once decided (unless it died meanwhile). */
  async create(a: NewApproval, timeoutMs: number, waitingReplica: string): Promise<Approval> {
    const { rows } = await this.db.query<Row>(
      `INSERT INTO tool_approvals (id, session_id, turn_id, tool_call_id, tool, input, match_key, agent_id, channel, endpoint_id,
                                   shapes_every_conversation, reason, owner_only, expires_at, waiting_replica, rule)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $12, $13, $14, now() + ($11::int * interval '1 millisecond'), $15, $16)
       RETURNING ${COLUMNS}`,
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
        waitingReplica,
        a.rule ?? null,
      ],
    );
    return toApproval(rows[0]);
  }

  async findById(id: string): Promise<Approval | null> {
    const row = await viaPrisma(() => this.db.prisma.toolApproval.findUnique({ where: { id } }));
    return row ? toApproval(row) : null;
  }

  async listByStatus(status: ApprovalStatus | undefined, limit: number): Promise<Approval[]> {
    const rows = await viaPrisma(() =>
      this.db.prisma.toolApproval.findMany({ where: status ? { status } : {}, orderBy: { requestedAt: 'desc' }, take: limit }),
    );
    return rows.map(toApproval);
  }

  /**
   * Moves a pending approval to its final status; null when it was no longer pending (lost the race).
   * A decider that is the waiting replica takes the continuation in the same UPDATE; otherwise the
   * row keeps naming the replica that still has to take it, with whether that one is alive.
   */
  async settle(
    id: string,
    status: Exclude<ApprovalStatus, 'pending'>,
    decidedBy: string,
    replicaId: string,
  ): Promise<SettledApproval | null> {
    const { rows } = await this.db.query<SettledRow>(
      `UPDATE tool_approvals SET status = $2, decided_at = now(), decided_by = $3,
              waiting_replica = CASE WHEN waiting_replica = $4 THEN NULL ELSE waiting_replica END
        WHERE id = $1 AND status = 'pending'
        RETURNING ${COLUMNS}, coalesce(nestclaw_replica_alive(waiting_replica), false) AS "waiterAlive"`,
      [id, status, decidedBy, replicaId],
    );
    const row = rows[0];
    return row ? { approval: toApproval(row), waitingReplica: row.waitingReplica, waiterAlive: row.waiterAlive } : null;
  }

  /**
   * Takes the continuation of a decided approval's turn for `replicaId` (the one that asked): null
   * when it was already taken (the asker was thought dead and another replica resumed the turn).
   */
  async take(id: string, replicaId: string): Promise<Approval | null> {
    const { rows } = await this.db.query<Row>(
      `UPDATE tool_approvals SET waiting_replica = NULL
        WHERE id = $1 AND waiting_replica = $2 AND status <> 'pending' RETURNING ${COLUMNS}`,
      [id, replicaId],
    );
    return rows[0] ? toApproval(rows[0]) : null;
  }

  /**
   * Takes every decided approval whose continuation nobody took: its asker is dead (killed between
   * asking and the decision), or is this replica and missed the notification (listener reconnecting).
   */
  async takeOrphaned(replicaId: string): Promise<Approval[]> {
    const { rows } = await this.db.query<Row>(
      `UPDATE tool_approvals SET waiting_replica = NULL
        WHERE status <> 'pending' AND waiting_replica IS NOT NULL
          AND (waiting_replica = $1 OR NOT nestclaw_replica_alive(waiting_replica))
        RETURNING ${COLUMNS}`,
      [replicaId],
    );
    return rows.map(toApproval);
  }

  async pending(): Promise<Approval[]> {
    const { rows } = await this.db.query<Row>(`SELECT ${COLUMNS} FROM tool_approvals WHERE status = 'pending' ORDER BY requested_at`);
    return rows.map(toApproval);
  }

  async remember(tool: string, matchKey: string, createdBy: string): Promise<void> {
    await viaPrisma(() => this.db.prisma.toolAllowRule.createMany({ data: [{ tool, matchKey, createdBy }], skipDuplicates: true }));
  }

  async isRemembered(tool: string, matchKey: string): Promise<boolean> {
    const { rowCount } = await this.db.query(`SELECT 1 FROM tool_allow_rules WHERE tool = $1 AND match_key = $2`, [tool, matchKey]);
    return (rowCount ?? 0) > 0;
  }
}
