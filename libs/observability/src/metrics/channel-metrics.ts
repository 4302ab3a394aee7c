import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { LABEL as L, METRIC as M } from '../telemetry.names';
import { SHORT_SECONDS } from './buckets';

/** The chat channels' metrics (Telegram, Discord, …), in the process registry; recorders/channel.recorder.ts writes them. */
export class ChannelMetrics {
  private readonly r: Registry[];
  readonly inbound: Counter<string>;
  readonly deliveryDuration: Histogram<string>;
  readonly deliveryFailures: Counter<string>;
  readonly platformRateLimited: Counter<string>;
  readonly inboundPending: Gauge<string>;

  constructor(registry: Registry) {
    this.r = [registry];
    this.inbound = new Counter({
      name: M.channelInbound,
      help: 'Channel messages received, by outcome (answered, refused, duplicate, ignored, error)',
      labelNames: [L.channel, L.outcome],
      registers: this.r,
    });
    this.deliveryDuration = new Histogram({
      name: M.channelDeliveryDuration,
      help: 'Time to deliver a reply to the platform',
      labelNames: [L.channel],
      buckets: SHORT_SECONDS,
      registers: this.r,
    });
    this.deliveryFailures = new Counter({
      name: M.channelDeliveryFailures,
      help: 'Replies the platform did not take',
      labelNames: [L.channel],
      registers: this.r,
    });
    this.platformRateLimited = new Counter({
      name: M.channelRateLimited,
      help: 'HTTP 429 answers from chat platforms',
      labelNames: [L.channel],
      registers: this.r,
    });
    this.inboundPending = new Gauge({
      name: M.channelInboundPending,
      help: 'Inbound messages stored but not answered yet',
      labelNames: [L.channel],
      registers: this.r,
    });
  }
}
