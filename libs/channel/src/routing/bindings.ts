/**
 * Which agent answers a message: the most specific binding wins, peer > guild > team > account >
 * channel > default (design notes §10). A binding that names a more specific condition never matches
 * at a less specific level.
 */

export interface Binding {
  agent: string;
  match: {
    channel?: string;
    account?: string;
    peer?: { kind: 'dm' | 'group' | 'channel'; id: string };
    guild?: string;
    team?: string;
  };
}

export interface RouteInput {
  channel: string;
  accountId?: string;
  peer: { kind: 'dm' | 'group' | 'channel'; id: string };
  guildId?: string;
  teamId?: string;
}

export type MatchedBy = 'peer' | 'guild' | 'team' | 'account' | 'channel' | 'default';

export function resolveAgent(
  bindings: readonly Binding[],
  input: RouteInput,
  fallback = 'default',
): { agentId: string; matchedBy: MatchedBy } {
  const onChannel = bindings.filter((b) => !b.match.channel || b.match.channel === input.channel);
  const sameAccount = (b: Binding) => !b.match.account || b.match.account === '*' || b.match.account === input.accountId;
  const peer = onChannel.find(
    (b) => b.match.peer && b.match.peer.kind === input.peer.kind && b.match.peer.id === input.peer.id && sameAccount(b),
  );
  if (peer) return { agentId: peer.agent, matchedBy: 'peer' };
  const guild = onChannel.find((b) => !b.match.peer && b.match.guild && b.match.guild === input.guildId && sameAccount(b));
  if (guild) return { agentId: guild.agent, matchedBy: 'guild' };
  const team = onChannel.find((b) => !b.match.peer && !b.match.guild && b.match.team && b.match.team === input.teamId && sameAccount(b));
  if (team) return { agentId: team.agent, matchedBy: 'team' };
  const plain = (b: Binding) => !b.match.peer && !b.match.guild && !b.match.team;
  const account = onChannel.find(
    (b) => plain(b) && b.match.channel && b.match.account && b.match.account !== '*' && b.match.account === input.accountId,
  );
  if (account) return { agentId: account.agent, matchedBy: 'account' };
  const channel = onChannel.find((b) => plain(b) && b.match.channel === input.channel && (!b.match.account || b.match.account === '*'));
  if (channel) return { agentId: channel.agent, matchedBy: 'channel' };
  const any = bindings.find((b) => plain(b) && !b.match.channel && !b.match.account);
  return any ? { agentId: any.agent, matchedBy: 'default' } : { agentId: fallback, matchedBy: 'default' };
}
