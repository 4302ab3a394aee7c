import { telemetry } from '../telemetry.state';
import { label } from './label';
import { countActiveSessions } from './turn.recorder';

/** The pg pool's counters, read at scrape time. */
export function observePool(source: () => { total: number; idle: number; waiting: number }): void {
  telemetry.sources.pool = source;
}

export function observeMigrations(source: () => number): void {
  telemetry.sources.migrationsApplied = source;
}

telemetry.sources.activeSessions = () => countActiveSessions();

export function recordRetentionDeleted(table: string, rows: number): void {
  telemetry.metrics?.retentionDeleted.labels(label(table)).inc(Math.max(0, rows));
}
