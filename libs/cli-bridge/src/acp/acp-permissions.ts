import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { RequestPermissionRequest, RequestPermissionResponse } from '@agentclientprotocol/sdk';
import { ApprovalService } from '@nestclaw/tool';
import type { ExchangeScope } from '../exchange/exchange.types';
import { PermissionDecision, permissionInput, permissionMatchKey, permissionOutcome } from './permission-mapping';

/**
 * An ACP agent's `session/request_permission` becomes a tool approval like any other (the chat's
 * buttons, `GET /v1/approvals`, `/approve`), with the whole tool call as its input. The agent waits
 * until someone decides or the approval expires; nothing is approved on anyone's behalf.
 */
@Injectable()
export class AcpPermissions {
  constructor(private readonly approvals: ApprovalService) {}

  /** `signal`: the agent withdrew the request, or the chat gave up the turn; the answer is then `cancelled`. */
  async ask(request: RequestPermissionRequest, scope: ExchangeScope, signal?: AbortSignal): Promise<RequestPermissionResponse> {
    const input = permissionInput(scope.cli, request);
    const approval = await this.approvals.request({
      sessionId: scope.sessionId,
      turnId: scope.exchangeId,
      toolCallId: `cli-acp-${randomUUID()}`,
      tool: `cli:${scope.cli}`,
      input,
      matchKey: permissionMatchKey(input),
      agentId: `cli:${scope.cli}`,
      channel: scope.channel,
      endpointId: scope.endpointId,
    });
    const either = [signal, scope.signal].filter((s): s is AbortSignal => !!s);
    const decided = this.approvals.waitFor(approval.id, either.length ? AbortSignal.any(either) : undefined).then(
      (a): PermissionDecision => (a.status === 'approved' ? 'approve' : 'deny'),
      (): PermissionDecision => 'cancelled',
    );
    scope.onApproval(approval);
    return { outcome: permissionOutcome(await decided, request) };
  }
}
