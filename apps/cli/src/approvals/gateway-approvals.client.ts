/** An approval as `GET /v1/approvals` returns it (libs/tool's Approval, over JSON). */
export interface ApprovalView {
  id: string;
  sessionId: string;
  tool: string;
  input: unknown;
  agentId: string;
  channel: string;
  status: 'pending' | 'approved' | 'denied' | 'expired';
  requestedAt: string;
  expiresAt: string;
  decidedAt: string | null;
  decidedBy: string | null;
}

export type ApprovalStatusFilter = ApprovalView['status'];

/** The gateway answered with an error (`status` 0: it did not answer at all). */
export class ApprovalApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The most the gateway lists at once (its `limit` maximum). */
export const MAX_LIST = 500;

/**
 * The gateway's approval API (`/v1/approvals`, `approve` scope). Deciding goes through the running
 * gateway, never straight to the database, so the paused turn resumes in the process that holds it.
 */
export class GatewayApprovalsClient {
  constructor(
    readonly base: string,
    private readonly token: string,
  ) {}

  async list(status: ApprovalStatusFilter | undefined, limit: number): Promise<ApprovalView[]> {
    const query = new URLSearchParams({ limit: String(limit), ...(status ? { status } : {}) });
    return (await this.call<{ approvals: ApprovalView[] }>('GET', `/v1/approvals?${query.toString()}`)).approvals;
  }

  async decide(id: string, decision: 'approve' | 'deny', remember = false): Promise<ApprovalView> {
    const body = { decision, ...(remember ? { remember } : {}) };
    return (await this.call<{ approval: ApprovalView }>('POST', `/v1/approvals/${encodeURIComponent(id)}`, body)).approval;
  }

  /**
   * A full id, or the one approval among the latest `MAX_LIST` whose id starts with `prefix`
   * (like `nestclaw token revoke`). Decided ones count too, so a stale id gets "already decided".
   */
  async resolveId(prefix: string): Promise<string> {
    const wanted = prefix.trim().toLowerCase();
    if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(wanted)) return wanted;
    if (!wanted) throw new ApprovalApiError(404, 'not_found', 'an approval id (or the start of one) is required');
    const matches = (await this.list(undefined, MAX_LIST)).filter((a) => a.id.startsWith(wanted));
    if (matches.length === 1) return matches[0].id;
    if (matches.length === 0) throw new ApprovalApiError(404, 'not_found', `no approval id starts with "${prefix}"`);
    throw new ApprovalApiError(
      409,
      'ambiguous',
      `"${prefix}" matches ${matches.length} approvals (${matches.map((a) => a.id.slice(0, 8)).join(', ')}); give more of the id`,
    );
  }

  private async call<T>(method: string, path: string, json?: unknown): Promise<T> {
    let res: Response;
    try {
      res = await fetch(`${this.base}${path}`, {
        method,
        headers: { authorization: `Bearer ${this.token}`, ...(json ? { 'content-type': 'application/json' } : {}) },
        body: json ? JSON.stringify(json) : undefined,
        signal: AbortSignal.timeout(15_000),
      });
    } catch (e) {
      throw new ApprovalApiError(0, 'unreachable', `the gateway at ${this.base} did not answer (${(e as Error).message})`);
    }
    const body = (await res.json().catch(() => ({}))) as T & { error?: { code?: string; message?: string } };
    if (!res.ok) throw new ApprovalApiError(res.status, body.error?.code ?? 'http_error', body.error?.message ?? `HTTP ${res.status}`);
    return body;
  }
}
