import { Injectable, Logger, OnApplicationShutdown, OnModuleDestroy } from '@nestjs/common';
import { EventEmitter } from 'node:events';
import { NestclawError } from '@nestclaw/common';
import { ConfigService } from '@nestclaw/config';
import { AuditRepository } from '../audit/audit.repository';
import { ApprovalRepository } from './approval.repository';
import { OWNER_PERSON } from './conversation-files';
import type { Approval, ApprovalDecision, ApprovalStatus, NewApproval } from './approval.types';

interface ApprovalEvents {
  requested: [Approval];
  /** A final status was reached; `delivered` says whether a waiting run took it. */
  decided: [ApprovalDecision];
}

/**
 * Human approval of tool calls, independent of any transport: HTTP, WebSocket and channel buttons
 * all call `decide`. Approvals live in Postgres so they survive restarts; each pending one has a
 * timer that expires it, and `recover()` expires the overdue ones after a restart.
 */
@Injectable()
export class ApprovalService implements OnModuleDestroy, OnApplicationShutdown {
  private readonly logger = new Logger('Approvals');
  readonly events = new EventEmitter<ApprovalEvents>();
  private readonly waiters = new Map<string, { resolve: (a: Approval) => void; reject: (e: Error) => void }>();
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly repo: ApprovalRepository,
    private readonly audit: AuditRepository,
    private readonly config: ConfigService,
  ) {}

  async request(a: NewApproval): Promise<Approval> {
    const approval = await this.repo.create(a, this.config.get().tools.approval.timeout);
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
    const settled = await this.repo.settle(id, status, decidedBy);
    if (!settled) {
      const existing = await this.repo.findById(id);
      if (!existing) throw new NestclawError('not_found', `Approval "${id}" does not exist`);
      throw new NestclawError('conflict', `Approval "${id}" is already ${existing.status}`);
    }
    if (remember && status === 'approved') await this.repo.remember(settled.tool, settled.matchKey, decidedBy);
    await this.audit.record({
      actor: decidedBy,
      action: 'approval.decide',
      target: `${settled.tool} ${settled.matchKey}`,
      outcome: status,
      sessionId: settled.sessionId,
      detail: { approvalId: id, turnId: settled.turnId, remember },
    });
    this.deliver(settled);
    return settled;
  }

  /**
   * The run that asked gives up for good (a subagent whose parent stopped waiting): the approval
   * expires now, so a later decision gets 409 and the call never runs. No resume follows: the run
   * itself took this outcome.
   */
  async cancel(id: string, why: string): Promise<void> {
    const settled = await this.repo.settle(id, 'expired', 'system');
    if (!settled) return;
    this.waiters.delete(id);
    await this.audit.record({
      actor: 'system',
      action: 'approval.cancel',
      target: `${settled.tool} ${settled.matchKey}`,
      outcome: 'expired',
      sessionId: settled.sessionId,
      detail: { approvalId: id, turnId: settled.turnId, why },
    });
    this.deliver(settled, true);
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
  }

  private schedule(a: Approval): void {
    const ms = Math.max(0, Date.parse(a.expiresAt) - Date.now());
    const t = setTimeout(() => void this.expire(a.id), Math.min(ms, 2 ** 31 - 1));
    t.unref();
    this.timers.set(a.id, t);
  }

  private async expire(id: string): Promise<void> {
    try {
      const settled = await this.repo.settle(id, 'expired', 'system');
      if (!settled) return;
      await this.audit.record({
        actor: 'system',
        action: 'approval.expire',
        target: `${settled.tool} ${settled.matchKey}`,
        outcome: 'expired',
        sessionId: settled.sessionId,
        detail: { approvalId: id, turnId: settled.turnId },
      });
      this.deliver(settled);
    } catch (e) {
      this.logger.error(`could not expire approval ${id}: ${(e as Error).message}`);
    }
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
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }
}
