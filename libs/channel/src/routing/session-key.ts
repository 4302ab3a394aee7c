/**
 * Session keys: `agent:<agentId>:<channel>:<peerKind>:<peerId>` (design notes §9). DMs follow
 * `session.dm_scope`; groups and channels always get their own session (a topic/thread its own).
 */

export type DmScope = 'main' | 'per-peer' | 'per-channel-peer';
export type PeerKind = 'dm' | 'group' | 'channel';

export interface SessionKeyInput {
  agentId: string;
  channel: string;
  peerKind: PeerKind;
  /** DM: the sender id; group/channel: the chat id. */
  peerId: string;
  threadId?: string;
  dmScope: DmScope;
  /** person → ["telegram:111", "discord:222"] */
  identityLinks?: Record<string, string[]>;
}

const clean = (s: string) => s.replace(/[^A-Za-z0-9._@-]/g, '_');

/** The person a platform sender is linked to, if any (`telegram:111` listed under `alice`). */
export function linkedIdentity(channel: string, senderId: string, links: Record<string, string[]> = {}): string | undefined {
  const id = `${channel}:${senderId}`;
  return Object.entries(links).find(([, ids]) => ids.includes(id))?.[0];
}

export function buildSessionKey(i: SessionKeyInput): string {
  const agent = clean(i.agentId);
  if (i.peerKind === 'dm') {
    const person = linkedIdentity(i.channel, i.peerId, i.identityLinks);
    switch (i.dmScope) {
      case 'main':
        return `agent:${agent}:main`;
      case 'per-peer':
        return `agent:${agent}:dm:${clean(person ?? `${i.channel}-${i.peerId}`)}`;
      case 'per-channel-peer':
        // A linked person shares one session across channels even in this scope: that is what a link is for.
        return person ? `agent:${agent}:dm:${clean(person)}` : `agent:${agent}:${clean(i.channel)}:dm:${clean(i.peerId)}`;
    }
  }
  const base = `agent:${agent}:${clean(i.channel)}:${i.peerKind}:${clean(i.peerId)}`;
  return i.threadId ? `${base}:thread:${clean(i.threadId)}` : base;
}
