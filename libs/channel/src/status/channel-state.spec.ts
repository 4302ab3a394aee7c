import { channelStateOf } from './channel-state';

const held = { error: null, leaseHeld: true, ownedHere: true, connectedHere: true };

describe("a channel's state for operators", () => {
  it('is running while this replica holds the lease and is connected', () => {
    expect(channelStateOf(held)).toBe('running');
  });

  it('is running when another live replica holds the lease (its connection is its own business)', () => {
    expect(channelStateOf({ ...held, ownedHere: false, connectedHere: false })).toBe('running');
  });

  it('is connecting while this replica holds the lease but the platform has not answered yet', () => {
    expect(channelStateOf({ ...held, connectedHere: false })).toBe('connecting');
  });

  it('is failed, with precedence, when the adapter could not be set up or started', () => {
    expect(channelStateOf({ ...held, error: 'bad token' })).toBe('failed');
    expect(channelStateOf({ error: 'bad token', leaseHeld: false, ownedHere: false, connectedHere: false })).toBe('failed');
  });

  it('is stopped when no live replica holds the lease', () => {
    expect(channelStateOf({ error: null, leaseHeld: false, ownedHere: false, connectedHere: false })).toBe('stopped');
  });
});
