import { Injectable } from '@nestjs/common';
import { traceApprovalWait } from '@nestclaw/observability';
import type { ChatMessage, ToolCall } from '@nestclaw/provider';
import {
  Approval,
  ApprovalService,
  AuditEntry,
  AuditSink,
  PreparedCall,
  ToolContext,
  ToolInvoker,
  ToolRegistry,
  ToolResult,
} from '@nestclaw/tool';
import type { AgentEvent } from '../agent.events';
import type { NewMessage } from '../session/session.types';
import { ActiveTurn, StepInput, StepOutput, SUBAGENT_CHANNEL, TurnDetachedError } from './turn.types';

/**
 * Part of the loop stage: runs one model response's tool calls in order. A call that needs approval
 * first stores the turn's progress (so it can resume from the database after a restart), creates the
 * approval, tells the client, and waits. A call that may change something (`Tool.sideEffects`) is
 * stored before it starts, so crash recovery sees it and never runs the turn again (InterruptedTurns);
 * read-only steps are stored after they finish, with no round trip of their own. Progress is stored
 * through the turn's ledger, and the audit entries of the step's tool runs with it.
 */
@Injectable()
export class ToolStepRunner {
  constructor(
    private readonly invoker: ToolInvoker,
    private readonly approvals: ApprovalService,
    private readonly tools: ToolRegistry,
  ) {}

  async run(turn: ActiveTurn, step: StepInput, signal: AbortSignal | undefined, emit: (e: AgentEvent) => void): Promise<StepOutput> {
    const ctx: ToolContext = {
      sessionId: turn.sessionId,
      turnId: turn.turnId,
      agentId: turn.agentId,
      personId: turn.personId,
      channel: turn.channel,
    };
    const prompt: ChatMessage[] = [{ role: 'assistant', content: step.content, toolCalls: step.calls }];
    let unsaved: NewMessage[] = step.stored ? [] : [{ role: 'assistant', content: step.content, toolCalls: step.calls }];
    let llmCalls = step.llmCalls;
    // The audit rows of this step's tool runs ride on the next progress statement instead of one INSERT each.
    let audit: AuditEntry[] = [];
    const defer = (entry: AuditEntry) => audit.push(entry);
    /** The assistant row that asked for these calls is stored (resumed, or stored before an earlier call). */
    let onRecord = !!step.stored;
    const store = async () => {
      await turn.ledger.record(unsaved, llmCalls, audit);
      unsaved = [];
      llmCalls = [];
      audit = [];
      onRecord = true;
    };
    const sig = signal ?? new AbortController().signal;
    for (const call of step.calls) {
      const done = step.stored?.results.get(call.id);
      if (done) {
        prompt.push({ role: 'tool', content: done.content, toolCallId: call.id, name: call.name });
        continue;
      }
      let input: unknown = call.arguments;
      try {
        input = JSON.parse(call.arguments);
      } catch {
        // reported to the model by the invoker
      }
      emit({ type: 'tool_call', id: call.id, name: call.name, input });
      let result: ToolResult;
      if (step.decided?.toolCallId === call.id) {
        result = await this.afterDecision(step.decided, call, ctx, turn, sig, defer);
      } else {
        const prep = await this.invoker.prepare(call.name, call.arguments, ctx, turn.agent, defer);
        if (prep.kind === 'result') result = prep.result;
        else if (!prep.call.needsApproval) {
          if (!onRecord && this.tools.mayHaveSideEffects(call.name, call.arguments)) await store();
          result = await this.invoker.run(prep.call, ctx, turn.agent, sig, defer);
        } else {
          await store();
          const approval = await this.approvals.request({
            sessionId: turn.sessionId,
            turnId: turn.turnId,
            toolCallId: call.id,
            tool: call.name,
            input: prep.call.input,
            matchKey: prep.call.matchKey,
            agentId: turn.agentId,
            channel: turn.channel,
            endpointId: turn.endpointId ?? null,
            shapesEveryConversation: !!prep.call.shapesEveryConversation,
            reason: prep.call.shapesEveryConversation ?? null,
            rule: prep.call.approvalRule ?? null,
            ownerOnly: prep.call.ownerOnly,
          });
          const wait = this.approvals.waitFor(approval.id, signal);
          emit({
            type: 'approval_required',
            approvalId: approval.id,
            tool: call.name,
            input: prep.call.input,
            shapesEveryConversation: approval.shapesEveryConversation,
            reason: approval.reason,
            ownerOnly: approval.ownerOnly,
          });
          let decided: Approval;
          try {
            decided = await traceApprovalWait(call.name, wait);
          } catch (e) {
            // Nobody resumes a subagent once its parent stopped waiting: its approval dies with it.
            if (turn.channel === SUBAGENT_CHANNEL) await this.approvals.cancel(approval.id, 'the subagent ended before a decision');
            else throw new TurnDetachedError();
            throw e;
          }
          result = await this.afterDecision(decided, call, ctx, turn, sig, defer, prep.call);
        }
      }
      emit({ type: 'tool_result', id: call.id, name: call.name, output: result.output, isError: result.isError });
      prompt.push({ role: 'tool', content: result.output, toolCallId: call.id, name: call.name });
      unsaved.push({
        role: 'tool',
        content: result.output,
        toolCallId: call.id,
        toolName: call.name,
        status: result.isError ? 'error' : 'ok',
      });
    }
    return { prompt, unsaved, llmCalls, audit };
  }

  private async afterDecision(
    a: Approval,
    call: ToolCall,
    ctx: ToolContext,
    turn: ActiveTurn,
    signal: AbortSignal,
    defer: AuditSink,
    prepared?: PreparedCall,
  ): Promise<ToolResult> {
    if (a.status === 'expired') return { output: 'denied: timed out waiting for approval', isError: true };
    if (a.status !== 'approved') return { output: `denied: ${a.decidedBy ?? 'the user'} refused this ${call.name} call`, isError: true };
    let ready = prepared;
    if (!ready) {
      // After a restart: validate again (policy or config may have changed), then run without asking twice.
      const prep = await this.invoker.prepare(call.name, JSON.stringify(a.input), ctx, turn.agent, defer);
      if (prep.kind === 'result') return prep.result;
      ready = prep.call;
    }
    return this.invoker.run(ready, ctx, turn.agent, signal, defer);
  }
}
