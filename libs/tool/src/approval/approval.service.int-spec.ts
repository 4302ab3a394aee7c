import { randomUUID } from 'node:crypto';
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
  beforeAll(async () => {
    int = await openIntDatabase();
    audit = new AuditRepository(int.db);
    approvals = new ApprovalService(new ApprovalRepository(int.db), audit, testConfigService({ tools: { approval: { timeout: '10m' } } }));
  });
  afterAll(async () => {
    approvals?.onApplicationShutdown();
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
    const overdue = await new ApprovalRepository(int.db).create(ask(), 0);
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
});
