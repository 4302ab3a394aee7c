import { context, trace } from '@opentelemetry/api';
import { addToLogContext, currentLogContext, withLogContext } from '../logging/log-context';
import { ATTR, SPAN } from '../telemetry.names';
import { telemetry } from '../telemetry.state';
import { endWithError, tracer } from '../tracing/tracer';
import { label } from './label';

const ACTIVE_WINDOW_MS = 5 * 60_000;
/** sessionId → last turn start; only its size is exported (never the ids). */
const recentSessions = new Map<string, number>();
let lastSweep = 0;

export function countActiveSessions(now = Date.now()): number {
  lastSweep = now;
  for (const [id, at] of recentSessions) if (now - at > ACTIVE_WINDOW_MS) recentSessions.delete(id);
  return recentSessions.size;
}

/** Notes a session's turn; sweeps old ones at most once a minute, so the map stays bounded even when nobody scrapes. */
function sessionActive(sessionId: string, now = Date.now()): void {
  recentSessions.set(sessionId, now);
  if (now - lastSweep > 60_000) countActiveSessions(now);
}

export interface TurnInfo {
  agent: string;
  /** http, sse, ws, openai, cli, telegram, discord… */
  channel: string;
  sessionId: string;
  /** The user's message: put on the span only when `observability.tracing.capture_content` is on. */
  input?: string;
}

/** GenAI message shape for gen_ai.input/output.messages. */
const messages = (role: string, text: string) => JSON.stringify([{ role, parts: [{ type: 'text', content: text }] }]);

/** How a turn ended, from what it returned or threw. */
function outcomeOf(result: unknown, error: unknown): { outcome: string; code?: string } {
  if (error === undefined) return { outcome: (result as { interrupted?: boolean })?.interrupted ? 'interrupted' : 'ok' };
  if ((error as Error)?.constructor?.name === 'TurnDetachedError') return { outcome: 'paused' };
  const code = typeof (error as { code?: unknown })?.code === 'string' ? (error as { code: string }).code : 'internal';
  return { outcome: code === 'cancelled' ? 'cancelled' : 'error', code };
}

/**
 * One turn as telemetry sees it: made when the turn is queued (so the queue wait is measured), run
 * when its session's lane reaches it. Records turns, duration, errors, in-flight and queue wait, and
 * opens the turn's span (child of the transport's span, if any) and log context.
 */
export class TurnRecording {
  private readonly queuedAt = performance.now();
  private readonly parent = context.active();

  constructor(private readonly info: TurnInfo) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    const m = telemetry.metrics;
    const agent = label(this.info.agent);
    const channel = label(this.info.channel);
    const started = performance.now();
    sessionActive(this.info.sessionId);
    m?.turnQueueWait.labels(agent).observe((started - this.queuedAt) / 1000);
    m?.turnsInFlight.labels(agent).inc();
    const span = tracer().startSpan(
      `${SPAN.turn} ${agent}`,
      {
        attributes: {
          [ATTR.operationName]: 'invoke_agent',
          [ATTR.agentName]: this.info.agent,
          [ATTR.conversationId]: this.info.sessionId,
          [ATTR.channel]: channel,
        },
      },
      this.parent,
    );
    if (telemetry.captureContent && this.info.input !== undefined) span.setAttribute(ATTR.inputMessages, messages('user', this.info.input));
    const ctx = trace.setSpan(this.parent, span);
    let result: T | undefined;
    let error: unknown;
    try {
      result = await context.with(ctx, () => withLogContext({ sessionId: this.info.sessionId, agent: this.info.agent }, task));
      return result;
    } catch (e) {
      error = e ?? new Error('unknown');
      throw e;
    } finally {
      const { outcome, code } = outcomeOf(result, error);
      m?.turnsInFlight.labels(agent).dec();
      m?.turns.labels(agent, channel, outcome).inc();
      m?.turnDuration.labels(agent, channel).observe((performance.now() - started) / 1000);
      if (code && outcome === 'error') m?.turnErrors.labels(agent, label(code)).inc();
      const reply = (result as { reply?: unknown } | undefined)?.reply;
      if (telemetry.captureContent && typeof reply === 'string') span.setAttribute(ATTR.outputMessages, messages('assistant', reply));
      if (outcome === 'error') endWithError(span, error, code ?? 'internal');
      else span.setAttribute('nestclaw.turn.outcome', outcome).end();
    }
  }
}

/** Called when a turn is queued behind its session's earlier turns. */
export function beginTurn(info: TurnInfo): TurnRecording {
  return new TurnRecording(info);
}

/** The turn id exists once the turn opens: add it to the turn's span and log lines. */
export function turnOpened(turnId: string): void {
  trace.getActiveSpan()?.setAttribute(ATTR.turnId, turnId);
  addToLogContext({ turnId });
}

/** The agent of the turn running in this async context (model calls label their spend by it). */
export function currentAgent(): string | undefined {
  return currentLogContext()?.agent;
}

export type CrossReplicaWaitOutcome = 'taken' | 'cancelled' | 'conflict';

/** A turn waited for its session, busy on another replica (issue 24: one turn per session across replicas). */
export function recordCrossReplicaWait(seconds: number, outcome: CrossReplicaWaitOutcome): void {
  telemetry.metrics?.sessionCrossReplicaWait.labels(outcome).observe(seconds);
}
