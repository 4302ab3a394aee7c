export * from './agent.events';
export * from './agent.service';
export * from './agent.module';
export { SessionRepository } from './session/session.repository';
export type { StoredMessage, SessionSummary } from './session/session.repository';
export { SESSION_ID_PATTERN, newSessionId } from './session/session-key';
