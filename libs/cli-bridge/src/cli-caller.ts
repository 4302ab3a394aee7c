/** Who writes to the bridge, as the chat layer knows them. */
export interface CliCaller {
  channel: string;
  senderId: string;
  /** The chat's conversation (routing's session key): what a binding is for. */
  sessionKey: string;
  /** The owner, or someone the owner made an approver in config: may drive any CLI. */
  isOwner: boolean;
}

/** `telegram:123`, the form `allow_from` lists people in. */
export const identityOf = (c: CliCaller) => `${c.channel}:${c.senderId}`;

export const REFUSAL = 'Only the owner and the people listed for a CLI may drive it: it runs commands on the owner’s machine.';
