import { context, SpanStatusCode, trace } from '@opentelemetry/api';
import { ATTR, SPAN } from '../telemetry.names';
import { telemetry } from '../telemetry.state';
import { tracer } from '../tracing/tracer';
import { label } from './label';

export interface ToolRunRecording {
  end(result: { isError: boolean }): void;
}

/** A tool run starts: an `execute_tool {tool}` span under the turn; `end` records runs and duration. */
export function startToolRun(tool: string): ToolRunRecording {
  const started = performance.now();
  const span = tracer().startSpan(`${SPAN.toolRun} ${tool}`, {
    attributes: { [ATTR.operationName]: 'execute_tool', [ATTR.toolName]: tool },
  });
  return {
    end: ({ isError }) => {
      const outcome = isError ? 'error' : 'ok';
      telemetry.metrics?.toolRuns.labels(label(tool), outcome).inc();
      telemetry.metrics?.toolRunDuration.labels(label(tool)).observe((performance.now() - started) / 1000);
      span.setAttribute(ATTR.toolOutcome, outcome);
      if (isError) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    },
  };
}

/** A tool call refused by policy or a hook before it ran. */
export function recordToolRefusal(tool: string): void {
  telemetry.metrics?.toolRefusals.labels(label(tool)).inc();
  trace.getActiveSpan()?.addEvent('tool.refused', { [ATTR.toolName]: tool });
}

/** The sandbox executor tools run in now ('none' when sandboxed tools are disabled). */
export function setToolExecutor(kind: string | null): void {
  const m = telemetry.metrics;
  if (!m) return;
  m.toolExecutor.reset();
  m.toolExecutor.labels(label(kind ?? 'none')).set(1);
}

/** Wraps the wait for a human decision in a `tool.approval_wait` span. */
export async function traceApprovalWait<T extends { status: string }>(tool: string, wait: Promise<T>): Promise<T> {
  const span = tracer().startSpan(SPAN.approvalWait, { attributes: { [ATTR.toolName]: tool } }, context.active());
  try {
    const decided = await wait;
    span.setAttribute(ATTR.approvalDecision, decided.status);
    return decided;
  } finally {
    span.end();
  }
}

export function recordApprovalRequested(): void {
  telemetry.metrics?.approvalsPending.inc();
}

/** An approval was decided: approved, denied or expired, after `waitMs`. */
export function recordApprovalDecided(tool: string, decision: string, waitMs: number | undefined): void {
  const m = telemetry.metrics;
  if (!m) return;
  m.approvalsPending.dec();
  m.approvalsDecided.labels(label(tool), label(decision)).inc();
  if (waitMs !== undefined && waitMs >= 0) m.approvalWait.labels(label(tool)).observe(waitMs / 1000);
}

/** Pending approvals found at start-up (left from before a restart). */
export function setApprovalsPending(n: number): void {
  telemetry.metrics?.approvalsPending.set(n);
}
