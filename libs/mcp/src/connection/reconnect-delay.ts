/** Wait before reconnect attempt `attempt` (1, 2, …): 0.5 s doubling to 30 s, with up to 20 % jitter so servers restarted together do not retry in step. */
export function reconnectDelay(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(30_000, 500 * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (1 + 0.2 * random()));
}
