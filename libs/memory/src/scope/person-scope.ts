/**
 * Whose memories a turn may see. A person is:
 * - `owner` for the owner token on any of the gateway's own transports (and for channel identities
 *   linked under the name `owner` in `session.identity_links`),
 * - `token:<id>` for a paired API token,
 * - the linked person's name for a channel sender listed in `session.identity_links`,
 * - otherwise `<channel>:<sender id>`.
 * A turn whose person cannot be told (a channel message without a sender) gets no memory at all.
 */
export const OWNER_SCOPE = 'owner';

/** Transports where an unscoped caller has proven the owner token. */
const OWNER_TRANSPORTS = new Set(['http', 'sse', 'ws', 'openai', 'cli']);

export interface TurnIdentity {
  channel: string;
  endpointId?: string;
  /** Paired API token id (absent for the owner and for channels). */
  principalId?: string;
}

export function tokenScope(tokenId: string): string {
  return `token:${tokenId}`;
}

export function personOf(i: TurnIdentity, identityLinks: Record<string, string[]> = {}): string | undefined {
  if (i.principalId) return tokenScope(i.principalId);
  if (OWNER_TRANSPORTS.has(i.channel)) return OWNER_SCOPE;
  if (!i.endpointId) return undefined;
  const id = `${i.channel}:${i.endpointId}`;
  const linked = Object.entries(identityLinks).find(([, ids]) => ids.includes(id))?.[0];
  return linked ?? id;
}
