import { telemetry } from '../telemetry.state';
import { label } from './label';

/** A heartbeat the daily token cap stopped (the scheduler also logs the first one of each day). */
export function recordHeartbeatCapReached(agent: string): void {
  telemetry.metrics?.heartbeatCapReached.labels(label(agent)).inc();
}
