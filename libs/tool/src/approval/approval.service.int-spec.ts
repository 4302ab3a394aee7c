import { randomUUID } from 'node:crypto';
import { DatabaseNotifications, ReplicaRegistry } from '@nestclaw/db';
import { IntDatabase, openIntDatabase, testConfigService, uniqueId } from '@nestclaw/testing';
import { AuditRepository } from '../audit/audit.repository';
import { ApprovalRepository } from './approval.repository';
import { ApprovalService } from './approval.service';
import type { ApprovalDecision, NewApproval } from './approval.types';

const TEN_MINUTES = 600_000;

describe('ApprovalService (real database)', () => {
  let int: IntDatabase;
  let approvals: ApprovalService;
  let audit: AuditRepository;
  let notifications: DatabaseNotifications;
  let replica: ReplicaRegistry;
  beforeAll(async () => {
    int = await openIntDatabase();
    audit = new AuditRepository(int.db);
    notifications = new DatabaseNotifications(int.db);
    replica = new ReplicaRegistry(int.db, false);
    approvals = new ApprovalService(
      new ApprovalRepository(int.db),
      audit,
      testConfigService({ tools: { approval: { timeout: '10m' } } }),
      notifications,
      replica,
    );
  });
  afterAll(async () => {
    approvals?.onApplicationShutdown();
    await notifications?.beforeApplicationShutdown();
    await int?.close();
  });

  const ask = (extra: Partial<NewApproval> = {}): NewApproval => ({
    sessionId: uniqueId('s'),
    turnId: randomUUID(),
    toolCallId: uniqueId('call'),
    tool: 'shell',
    input: { command: 'rm -rf build' },
    matchKey: `rm -rf ${uniqueId('dir')}`,
    agentId: 'main',
    channel: 'http',
    endpointId: null,
    ...extra,
  });

  const auditActions = async (approvalId: string) =>
    (await audit.page(100)).filter((e) => e.detail?.approvalId === approvalId).map((e) => [e.action, e.outcome]);

  it('stores a request as pending until the configured timeout and audits it', async () => {
    const a = await approvals.request(ask());
    expect(a.status).toBe('pending');
    expect(Date.parse(a.expiresAt) - Date.parse(a.requestedAt)).toBe(TEN_MINUTES);
    expect(await approvals.get(a.id)).toEqual(a);
    expect(await auditActions(a.id)).toEqual([['approval.request', 'pending']]);
  });

  it('hands an approval to the run waiting for it, naming who decided', async () => {
    const a = await approvals.request(ask());
    const waiting = approvals.waitFor(a.id);
    const decided = new Promise<ApprovalDecision>((resolve) => approvals.events.once('decided', resolve));
    await approvals.decide(a.id, 'approve', 'owner');
    expect(await waiting).toMatchObject({ id: a.id, status: 'approved', decidedBy: 'owner' });
    expect(await decided).toMatchObject({ approval: { id: a.id }, delivered: true });
    expect(await auditActions(a.id)).toEqual([
      ['approval.decide', 'approved'],
      ['approval.request', 'pending'],
    ]);
  });

  it('reports a decision nobody in this process waits for as undelivered (the turn must be resumed)', async () => {
    const a = await approvals.request(ask());
    const decided = new Promise<ApprovalDecision>((resolve) => approvals.events.once('decided', resolve));
    await approvals.decide(a.id, 'deny', 'owner');
    expect(await decided).toMatchObject({ approval: { id: a.id, status: 'denied' }, delivered: false });
  });

  it('refuses a second decision with conflict and keeps the first', async () => {
    const a = await approvals.request(ask());
    await approvals.decide(a.id, 'deny', 'owner');
    await expect(approvals.decide(a.id, 'approve', 'someone-else')).rejects.toMatchObject({ code: 'conflict' });
    expect(await approvals.get(a.id)).toMatchObject({ status: 'denied', decidedBy: 'owner' });
  });

  it('says not_found when deciding an approval that does not exist', async () => {
    await expect(approvals.decide('00000000-0000-4000-8000-000000000000', 'approve', 'owner')).rejects.toMatchObject({
      code: 'not_found',
    });
  });

  it('remembers an approved call when asked, so the same call needs no approval again', async () => {
    const a = await approvals.request(ask());
    expect(await approvals.isRemembered(a.tool, a.matchKey)).toBe(false);
    await approvals.decide(a.id, 'approve', 'owner', true);
    expect(await approvals.isRemembered(a.tool, a.matchKey)).toBe(true);
  });

  it('never remembers a denial', async () => {
    const a = await approvals.request(ask());
    await approvals.decide(a.id, 'deny', 'owner', true);
    expect(await approvals.isRemembered(a.tool, a.matchKey)).toBe(false);
  });

  it('rejects a waiting run whose client went away', async () => {
    const a = await approvals.request(ask());
    const client = new AbortController();
    const waiting = approvals.waitFor(a.id, client.signal);
    client.abort();
    await expect(waiting).rejects.toMatchObject({ code: 'cancelled' });
    expect(await approvals.get(a.id)).toMatchObject({ status: 'pending' });
  });

  it('expires overdue approvals at start-up and tells their runs', async () => {
    const overdue = await new ApprovalRepository(int.db).create(ask(), 0, replica.id);
    const waiting = approvals.waitFor(overdue.id);
    await approvals.recover();
    expect(await waiting).toMatchObject({ id: overdue.id, status: 'expired', decidedBy: 'system' });
    expect(await auditActions(overdue.id)).toEqual([['approval.expire', 'expired']]);
  });

  describe('with a short timeout', () => {
    // Real timers and a 1.5 s timeout: faking setTimeout also froze the database client's own timers,
    // and the spec hung on the embedded database. Expiry is proven by the database's clock instead.
    const SHORT = 1_500;
    let shortLived: ApprovalService;
    beforeAll(() => {
      shortLived = new ApprovalService(
        new ApprovalRepository(int.db),
        audit,
        testConfigService({ tools: { approval: { timeout: SHORT } } }),
        notifications,
        replica,
      );
    });
    afterAll(() => shortLived?.onApplicationShutdown());

    it('expires an undecided approval when its timeout passes, not before, and tells the waiting run', async () => {
      const a = await shortLived.request(ask());
      const expired = await shortLived.waitFor(a.id);
      expect(expired).toMatchObject({ id: a.id, status: 'expired', decidedBy: 'system' });
      expect(Date.parse(expired.decidedAt!)).toBeGreaterThanOrEqual(Date.parse(a.expiresAt));
      expect(Date.parse(a.expiresAt) - Date.parse(a.requestedAt)).toBe(SHORT);
      expect(await auditActions(a.id)).toEqual([
        ['approval.expire', 'expired'],
        ['approval.request', 'pending'],
      ]);
    });
  });

  describe('across replicas', () => {
    // Two replicas on one database, each with its own listener and registered row.
    interface Replica {
      approvals: ApprovalService;
      notifications: DatabaseNotifications;
      registry: ReplicaRegistry;
      decided: ApprovalDecision[];
    }
    let a: Replica;
    let b: Replica;
    const replicaOn = async (): Promise<Replica> => {
      const n = new DatabaseNotifications(int.db);
      const registry = new ReplicaRegistry(int.db, true);
      await registry.onApplicationBootstrap();
      const config = testConfigService({ tools: { approval: { timeout: '10m' } } });
      const s = new ApprovalService(new ApprovalRepository(int.db), audit, config, n, registry);
      const decided: ApprovalDecision[] = [];
      s.events.on('decided', (d) => decided.push(d));
      await n.ready();
      return { approvals: s, notifications: n, registry, decided };
    };
    beforeAll(async () => {
      a = await replicaOn();
      b = await replicaOn();
    });
    afterAll(async () => {
      for (const r of [a, b]) {
        r?.approvals.onApplicationShutdown();
        await r?.registry.beforeApplicationShutdown();
        await r?.notifications.beforeApplicationShutdown();
      }
    });

    it('continues the turn on the replica that asked, once, when another replica decides', async () => {
      if (int.db.sharedSession) return; // PGlite: one process owns the database
      const asked = await a.approvals.request(ask());
      const waiting = a.approvals.waitFor(asked.id);
      await b.approvals.decide(asked.id, 'approve', 'owner');
      expect(await waiting).toMatchObject({ id: asked.id, status: 'approved', decidedBy: 'owner' });
      expect(a.decided.filter((d) => d.approval.id === asked.id)).toMatchObject([{ delivered: true }]);
      // The decider resumes nothing: the asker took the continuation (the row no longer names anyone).
      expect(b.decided.filter((d) => d.approval.id === asked.id)).toEqual([]);
      const { rows } = await int.db.query(`SELECT waiting_replica FROM tool_approvals WHERE id = $1`, [asked.id]);
      expect(rows[0].waiting_replica).toBeNull();
    });

    it('has the asker resume the turn from the database when its client left before the decision', async () => {
      if (int.db.sharedSession) return;
      const asked = await a.approvals.request(ask());
      const client = new AbortController();
      const waiting = a.approvals.waitFor(asked.id, client.signal);
      client.abort();
      await expect(waiting).rejects.toMatchObject({ code: 'cancelled' });
      await b.approvals.decide(asked.id, 'deny', 'owner');
      const deadline = Date.now() + 1000;
      while (!a.decided.some((d) => d.approval.id === asked.id) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(a.decided.filter((d) => d.approval.id === asked.id)).toMatchObject([{ delivered: false, approval: { status: 'denied' } }]);
      expect(b.decided.filter((d) => d.approval.id === asked.id)).toEqual([]);
    });

    it('resumes on the deciding replica, once, when the replica that asked is dead', async () => {
      const asked = await new ApprovalRepository(int.db).create(ask(), TEN_MINUTES, 'gone-host:1:dead');
      await b.approvals.decide(asked.id, 'approve', 'owner');
      const deadline = Date.now() + 1000;
      while (!b.decided.some((d) => d.approval.id === asked.id) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(b.decided.filter((d) => d.approval.id === asked.id)).toMatchObject([{ delivered: false }]);
      // Another replica's start-up sweep finds nothing left to take.
      await a.approvals.recover();
      expect(a.decided.filter((d) => d.approval.id === asked.id)).toEqual([]);
      expect(b.decided.filter((d) => d.approval.id === asked.id)).toHaveLength(1);
    });
  });
});
