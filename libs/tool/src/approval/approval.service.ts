import { Injectable, Logger, OnApplicationShutdown, OnModuleDestroy } from '@nestjs/common';
import { EventEmitter } from 'node:events';
import { NestclawError } from '@nestclaw/common';
import { ConfigService } from '@nestclaw/config';
import { DatabaseNotifications, EventPayload, ReplicaRegistry } from '@nestclaw/db';
import { AuditRepository } from '../audit/audit.repository';
import { ApprovalRepository } from './approval.repository';
import { OWNER_PERSON } from './conversation-files';
import type { Approval, ApprovalDecision, ApprovalStatus, NewApproval, SettledApproval } from './approval.types';

/** Beats (2 s each) between sweeps for decided approvals whose turn nobody continued (asker dead). */
const ORPHAN_SWEEP_BEATS = 5;

interface ApprovalEvents {
  requested: [Approval];
  /** A final status was reached; `delivered` says whether a waiting run took it. */
  decided: [ApprovalDecision];
}

/**
 * Human approval of tool calls, independent of any transport: HTTP, WebSocket and channel buttons
 * all call `decide`. Approvals live in Postgres so they survive restarts; each pending one has a
 * timer that expires it, and `recover()` expires the overdue ones after a restart.
 *
 * Across replicas (docs/adr/0016-scale-out.md): the paused turn continues on the replica that asked
 * (`waiting_replica`), where its client or chat is waiting. Any replica may decide: one conditional
 * UPDATE picks the one decision; a trigger on it notifies `approval_decided`, and the asker takes the
 * continuation with a second conditional UPDATE (`take`), so it runs once. When the decider is the
 * asker it takes it in the deciding UPDATE itself; when the asker is dead, whoever sees it first
 * (the decider, or any replica's sweep every 10 s) takes and resumes it from the database.
 */
@Injectable()
export class ApprovalService implements OnModuleDestroy, OnApplicationShutdown {
  private readonly logger = new Logger('Approvals');
  readonly events = new EventEmitter<ApprovalEvents>();
  private readonly waiters = new Map<string, { resolve: (a: Approval) => void; reject: (e: Error) => void }>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly unsubscribe: Array<() => void> = [];

  constructor(
    private readonly repo: ApprovalRepository,
    private readonly audit: AuditRepository,
    private readonly config: ConfigService,
    private readonly notifications: DatabaseNotifications,
    private readonly replicas: ReplicaRegistry,
  ) {
    this.unsubscribe.push(notifications.subscribe('approval_decided', (e) => void this.decidedElsewhere(e)));
    let beats = 0;
    this.unsubscribe.push(replicas.onBeat((healthy) => healthy && ++beats % ORPHAN_SWEEP_BEATS === 0 && void this.takeOrphaned()));
  }

  async request(a: NewApproval): Promise<Approval> {
    const approval = await this.repo.create(a, this.config.get().tools.approval.timeout, this.replicas.id);
    this.schedule(approval);
    await this.audit.record({
      actor: `agent:${a.agentId}`,
      action: 'approval.request',
      target: `${a.tool} ${a.matchKey}`,
      outcome: 'pending',
      sessionId: a.sessionId,
      detail: { approvalId: approval.id, turnId: a.turnId },
    });
    this.events.emit('requested', approval);
    return approval;
  }

  /** Resolves with the final approval once decided or expired; rejects if the caller gives up. */
  waitFor(id: string, signal?: AbortSignal): Promise<Approval> {
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.waiters.delete(id);
        reject(new NestclawError('cancelled', 'The client went away while the tool call was waiting for approval'));
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.set(id, {
        resolve: (a) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(a);
        },
        reject: (e) => {
          signal?.removeEventListener('abort', onAbort);
          reject(e);
        },
      });
    });
  }

  async decide(id: string, decision: 'approve' | 'deny', decidedBy: string, remember = false): Promise<Approval> {
    const status: ApprovalStatus = decision === 'approve' ? 'approved' : 'denied';
    if (decision === 'approve') await this.checkOwnerOnly(id, decidedBy);
    const decided = await this.repo.settle(id, status, decidedBy, this.replicas.id);
    if (!decided) {
      const existing = await this.repo.findById(id);
      if (!existing) throw new NestclawError('not_found', `Approval "${id}" does not exist`);
      throw new NestclawError('conflict', `Approval "${id}" is already ${existing.status}`);
    }
    const settled = decided.approval;
    if (remember && status === 'approved') await this.repo.remember(settled.tool, settled.matchKey, decidedBy);
    await this.audit.record({
      actor: decidedBy,
      action: 'approval.decide',
      target: `${settled.tool} ${settled.matchKey}`,
      outcome: status,
      sessionId: settled.sessionId,
      detail: { approvalId: id, turnId: settled.turnId, remember },
    });
    this.handOver(decided);
    return settled;
  }

  /**
   * The run that asked gives up for good (a subagent whose parent stopped waiting): the approval
   * expires now, so a later decision gets 409 and the call never runs. No resume follows: the run
   * itself took this outcome.
   */
  async cancel(id: string, why: string): Promise<void> {
    const decided = await this.repo.settle(id, 'expired', 'system', this.replicas.id);
    if (!decided) return;
    const settled = decided.approval;
    this.waiters.delete(id);
    await this.audit.record({
      actor: 'system',
      action: 'approval.cancel',
      target: `${settled.tool} ${settled.matchKey}`,
      outcome: 'expired',
      sessionId: settled.sessionId,
      detail: { approvalId: id, turnId: settled.turnId, why },
    });
    this.handOver(decided, true);
  }

  /**
   * A write that shapes every conversation, asked on a turn that was not the owner's, is approved by
   * the owner only (the owner token, or a channel identity linked to `owner` in session.identity_links).
   * Denying stays open to every approver: it changes nothing.
   */
  private async checkOwnerOnly(id: string, decidedBy: string): Promise<void> {
    const a = await this.repo.findById(id);
    if (!a?.ownerOnly || a.status !== 'pending') return; // unknown or settled: decide reports it
    const ownerIdentities = this.config.get().session.identity_links[OWNER_PERSON] ?? [];
    if (decidedBy === OWNER_PERSON || ownerIdentities.includes(decidedBy)) return;
    throw new NestclawError(
      'forbidden',
      `Only the owner can approve this ${a.tool} call: ${a.reason ?? 'it shapes every conversation'}, and it was asked in a conversation that is not the owner's`,
    );
  }

  async isRemembered(tool: string, matchKey: string): Promise<boolean> {
    return this.repo.isRemembered(tool, matchKey);
  }

  list(status: ApprovalStatus | undefined, limit = 100): Promise<Approval[]> {
    return this.repo.listByStatus(status, limit);
  }

  get(id: string): Promise<Approval | null> {
    return this.repo.findById(id);
  }

  /**
   * After a restart: expires overdue approvals (their turns get "denied: timed out") and re-arms
   * timers for the rest. Call once `decided` listeners are attached.
   */
  async recover(): Promise<void> {
    const pending = await this.repo.pending();
    for (const a of pending) {
      if (Date.parse(a.expiresAt) <= Date.now()) await this.expire(a.id);
      else this.schedule(a);
    }
    if (pending.length) this.logger.log(`${pending.length} approval(s) were pending at start-up`);
    await this.takeOrphaned();
  }

  private schedule(a: Approval): void {
    const ms = Math.max(0, Date.parse(a.expiresAt) - Date.now());
    const t = setTimeout(() => void this.expire(a.id), Math.min(ms, 2 ** 31 - 1));
    t.unref();
    this.timers.set(a.id, t);
  }

  private async expire(id: string): Promise<void> {
    try {
      const decided = await this.repo.settle(id, 'expired', 'system', this.replicas.id);
      if (!decided) return this.forget(id);
      const settled = decided.approval;
      await this.audit.record({
        actor: 'system',
        action: 'approval.expire',
        target: `${settled.tool} ${settled.matchKey}`,
        outcome: 'expired',
        sessionId: settled.sessionId,
        detail: { approvalId: id, turnId: settled.turnId },
      });
      this.handOver(decided);
    } catch (e) {
      this.logger.error(`could not expire approval ${id}: ${(e as Error).message}`);
    }
  }

  /**
   * After this replica stored the decision: continue the turn here when it is ours to take (asked
   * here, or by a replica before this column existed), leave it to the asker when alive (the
   * trigger's notification reaches it), or take it from a dead asker.
   */
  private handOver(d: SettledApproval, taken = false): void {
    if (d.waitingReplica === null) return this.deliver(d.approval, taken);
    this.forget(d.approval.id);
    if (!d.waiterAlive) void this.takeOrphaned();
  }

  /** `approval_decided` from any replica (this one included): the asker takes the continuation. */
  private async decidedElsewhere(e: EventPayload): Promise<void> {
    const id = String(e.approvalId);
    if (e.waitingReplica !== this.replicas.id) return this.forget(id);
    try {
      const taken = await this.repo.take(id, this.replicas.id);
      if (taken) return this.deliver(taken);
      // Someone took it before us (we were thought dead): the turn continues there, not here.
      this.forget(id);
      this.waiters.get(id)?.reject(new NestclawError('cancelled', 'The turn continues on another replica'));
      this.waiters.delete(id);
    } catch (err) {
      this.logger.warn(`could not take decided approval ${id}: ${(err as Error).message} (the sweep tries again)`);
    }
  }

  /** Continues, here, every decided turn nobody took (sweep: at start-up and every 10 s). Each once: a conditional UPDATE takes it. */
  private async takeOrphaned(): Promise<void> {
    try {
      for (const a of await this.repo.takeOrphaned(this.replicas.id)) this.deliver(a);
    } catch (e) {
      this.logger.warn(`could not look for decided approvals nobody continued: ${(e as Error).message}`);
    }
  }

  /** The decision is another replica's to act on: this one's expiry timer has nothing left to do. */
  private forget(id: string): void {
    clearTimeout(this.timers.get(id));
    this.timers.delete(id);
  }

  /** `taken`: the asking run already has the outcome (cancel), so nothing resumes the turn. */
  private deliver(a: Approval, taken = false): void {
    const t = this.timers.get(a.id);
    if (t) clearTimeout(t);
    this.timers.delete(a.id);
    const waiter = this.waiters.get(a.id);
    this.waiters.delete(a.id);
    waiter?.resolve(a);
    this.events.emit('decided', { approval: a, delivered: taken || !!waiter });
  }

  /** Shutting down: waiting runs let go (their turns stay open and resume after the restart). */
  onModuleDestroy(): void {
    for (const [id, w] of this.waiters) {
      this.waiters.delete(id);
      w.reject(new NestclawError('cancelled', 'The gateway is restarting; the turn resumes when the approval is decided'));
    }
  }

  onApplicationShutdown(): void {
    for (const stop of this.unsubscribe.splice(0)) stop();
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }
}
