/**
 * - `running`: a live replica holds the channel's lease and receives (this one: its connection is up).
 * - `connecting`: this replica holds the lease and started, but the platform does not answer yet (it keeps trying).
 * - `failed`: the adapter could not be built from config, or its start on this replica threw.
 * - `stopped`: no live replica holds the lease (shutting down, or between holders for a few seconds).
 *
 * Connecting and a failed start are known only on the receiving replica: another one sees a held
 * lease and reports the channel running.
 */
export type ChannelState = 'running' | 'connecting' | 'failed' | 'stopped';

export interface ChannelStateInput {
  /** Why building or starting the adapter failed, if it did. */
  error: string | null;
  /** A live replica holds the unexpired lease `channel:<id>`. */
  leaseHeld: boolean;
  /** This replica holds that lease. */
  ownedHere: boolean;
  /** This replica's adapter is receiving (polling answered, gateway connection ready). */
  connectedHere: boolean;
}

export function channelStateOf({ error, leaseHeld, ownedHere, connectedHere }: ChannelStateInput): ChannelState {
  if (error) return 'failed';
  if (!leaseHeld) return 'stopped';
  if (ownedHere && !connectedHere) return 'connecting';
  return 'running';
}
