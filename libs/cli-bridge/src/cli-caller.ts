/** Who writes to the bridge, as the chat layer knows them. */
export interface CliCaller {
  /** The chat platform (`telegram`), or `token` for an API client (HTTP or WebSocket chat). */
  channel: string;
  /** The sender on that platform, or the API token's id (`owner` for the owner token). */
  senderId: string;
  /** The chat's conversation (routing's session key): what a binding is for. */
  sessionKey: string;
  /** The owner, or someone the owner made an approver in config: may drive any CLI. */
  isOwner: boolean;
}

/** `telegram:123` or `token:<token id>`, the form `allow_from` lists people in. */
export const identityOf = (c: CliCaller) => `${c.channel}:${c.senderId}`;

export const REFUSAL = 'Only the owner and the people listed for a CLI may drive it: it runs commands on the owner’s machine.';
