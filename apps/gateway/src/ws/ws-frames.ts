import { z } from 'zod';
import { SESSION_ID_PATTERN } from '@nestclaw/agent';
import { findInvalidText } from '../http/input-hygiene';
import { validationError } from '../http/zod-validation.pipe';

export const clientFrameSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('chat'),
    id: z.string().min(1).max(100),
    message: z.string().trim().min(1).max(200_000),
    sessionId: z.string().regex(SESSION_ID_PATTERN).optional(),
    agentId: z.string().min(1).max(100).optional(),
    /** The turn goes on if this socket closes (a page reloading re-attaches with `subscribe`); Stop is a `cancel`. */
    keepRunning: z.boolean().optional(),
  }),
  /** Without `sessionId`: this socket's chat `id`. With it: that session's running turn, on whichever replica runs it (admin). */
  z.object({ type: z.literal('cancel'), id: z.string().min(1).max(100), sessionId: z.string().regex(SESSION_ID_PATTERN).optional() }),
  /** Live events of a session (turn started/finished, approval pending/decided) from every replica (admin). */
  z.object({ type: z.literal('subscribe'), id: z.string().min(1).max(100), sessionId: z.string().regex(SESSION_ID_PATTERN) }),
  /** Every session's live events, from every replica (admin): the control UI's Sessions list follows them. */
  z.object({ type: z.literal('subscribe_sessions'), id: z.string().min(1).max(100) }),
  z.object({ type: z.literal('unsubscribe'), id: z.string().min(1).max(100) }),
]);

export type ClientFrame = z.output<typeof clientFrameSchema>;
export type ChatFrame = Extract<ClientFrame, { type: 'chat' }>;
export type CancelFrame = Extract<ClientFrame, { type: 'cancel' }>;
export type SubscribeFrame = Extract<ClientFrame, { type: 'subscribe' }>;
export type SubscribeSessionsFrame = Extract<ClientFrame, { type: 'subscribe_sessions' }>;

/** A frame the gateway could not accept, answered with an error frame (the socket stays open). */
export interface InvalidFrame {
  /** The client's id when the frame had a usable one, so the client can match the error. */
  id: string | null;
  message: string;
}

/** Event name under which unreadable frames reach the gateway. */
export const INVALID_FRAME = 'invalid_frame';

/**
 * The adapter's message parser: one raw frame to `{ event, data }` for `@SubscribeMessage`. Never
 * throws: anything unreadable becomes an `invalid_frame` event instead of being dropped silently.
 */
export function parseClientFrame(raw: unknown): { event: string; data: ClientFrame | InvalidFrame } {
  const invalid = (message: string, id: string | null = null) => ({ event: INVALID_FRAME, data: { id, message } });
  if (typeof raw !== 'string') return invalid('Bad frame: binary frames are not supported; send JSON text frames');
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return invalid('Bad frame: frame is not valid JSON');
  }
  const rawId = (json as { id?: unknown } | null)?.id;
  const id = typeof rawId === 'string' && rawId.length <= 100 && !findInvalidText(rawId, 'id') ? rawId : null;
  const bad = findInvalidText(json, '');
  if (bad) return invalid(`Bad frame: ${bad}`, id);
  const result = clientFrameSchema.safeParse(json);
  if (!result.success) return invalid(validationError('frame', result.error.issues).message, id);
  return { event: result.data.type, data: result.data };
}
