import { ATTR, SPAN } from '../telemetry.names';
import { telemetry } from '../telemetry.state';
import { label } from './label';
import { traceRoot } from './transport.recorder';

export type InboundOutcome = 'answered' | 'refused' | 'duplicate' | 'ignored' | 'error';

/** One platform message handled, as a `channel.inbound` root span (its turn is a child). */
export async function traceInbound<T>(channel: string, handle: () => Promise<T>): Promise<T> {
  try {
    return await traceRoot(SPAN.channelInbound, { [ATTR.channel]: channel }, handle);
  } catch (e) {
    recordInbound(channel, 'error');
    throw e;
  }
}

/** One inbound message's outcome (`by` 0 starts the series without counting). */
export function recordInbound(channel: string, outcome: InboundOutcome, by = 1): void {
  telemetry.metrics?.channel.inbound.labels(label(channel), outcome).inc(by);
}

/** One reply (or part) sent to a platform, or not. */
export function recordDelivery(channel: string, ms: number, ok: boolean): void {
  const m = telemetry.metrics?.channel;
  if (!m) return;
  m.deliveryDuration.labels(label(channel)).observe(ms / 1000);
  if (!ok) m.deliveryFailures.labels(label(channel)).inc();
}

/** The platform answered 429 Too Many Requests. */
export function recordPlatformRateLimited(channel: string, by = 1): void {
  telemetry.metrics?.channel.platformRateLimited.labels(label(channel)).inc(by);
}

/** Starts a channel's series at zero (dashboards and rate() see them before the first event). */
export function startChannelSeries(channel: string): void {
  const m = telemetry.metrics?.channel;
  if (!m) return;
  const c = label(channel);
  for (const outcome of ['answered', 'refused', 'duplicate', 'error'] as const) m.inbound.labels(c, outcome).inc(0);
  m.deliveryFailures.labels(c).inc(0);
  m.platformRateLimited.labels(c).inc(0);
  m.inboundPending.labels(c).set(0);
}

export function setInboundPending(channel: string, n: number): void {
  telemetry.metrics?.channel.inboundPending.labels(label(channel)).set(n);
}

export type LeaseChange = 'acquired' | 'taken' | 'fenced' | 'released';

/** This replica acquired or lost a lease (issue 24: one owner per channel connection). */
export function recordLeaseChange(lease: string, change: LeaseChange): void {
  telemetry.metrics?.leaseChanges.labels(lease, change).inc();
}
