import type { Context } from '@opentelemetry/api';
import { AsyncLocalStorage } from 'node:async_hooks';

/** Ids attached to every log line written while a request or turn is being handled. */
export interface LogContext {
  requestId?: string;
  sessionId?: string;
  turnId?: string;
  agent?: string;
}

/** What follows a request or turn through its async calls: its log ids and, with tracing on, its OpenTelemetry context. */
export interface WorkContext {
  log?: LogContext;
  trace?: Context;
}

/**
 * The one AsyncLocalStorage behind the log context and the tracing context manager. On Node 20 every
 * enabled storage is copied onto every promise and callback a turn creates (~400 a turn), so two
 * storages (pino's ids and OpenTelemetry's own context manager) cost twice that with tracing on.
 */
export const workContext = new AsyncLocalStorage<WorkContext>();
