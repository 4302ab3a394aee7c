import { reconnectDelay } from './reconnect-delay';

describe('reconnect backoff', () => {
  it('starts at half a second and doubles', () => {
    expect([1, 2, 3, 4].map((a) => reconnectDelay(a, () => 0))).toEqual([500, 1000, 2000, 4000]);
  });

  it('stops growing at 30 seconds', () => {
    expect(reconnectDelay(20, () => 0)).toBe(30_000);
  });

  it('adds up to 20 % jitter', () => {
    expect(reconnectDelay(1, () => 1)).toBe(600);
  });
});
