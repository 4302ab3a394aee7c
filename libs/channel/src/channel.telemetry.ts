import { recordDelivery, recordPlatformRateLimited, startChannelSeries } from '@nestclaw/observability';
import type { ChannelAdapter } from './channel.port';

/** A platform error that is an HTTP 429 (telegraf's TelegramError.code, discord.js's status, @slack/web-api's error code). */
const isRateLimited = (e: unknown) => {
  const err = e as { code?: unknown; status?: unknown; response?: { error_code?: unknown } };
  return err?.code === 429 || err?.status === 429 || err?.response?.error_code === 429 || err?.code === 'slack_webapi_rate_limited_error';
};

/**
 * Measures every send and edit of an adapter (delivery latency, failures, platform 429s) at the
 * registry, so the adapters and the inbound pipeline stay free of telemetry. Also starts each inbound
 * outcome series at zero so dashboards and rate() see them before the first message.
 */
export function instrumentDelivery(adapter: ChannelAdapter): ChannelAdapter {
  startChannelSeries(adapter.id);
  const timed =
    <A extends unknown[], R>(fn: (...a: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const started = performance.now();
      try {
        const r = await fn(...args);
        recordDelivery(adapter.id, performance.now() - started, true);
        return r;
      } catch (e) {
        recordDelivery(adapter.id, performance.now() - started, false);
        if (isRateLimited(e)) recordPlatformRateLimited(adapter.id);
        throw e;
      }
    };
  adapter.send = timed(adapter.send.bind(adapter));
  if (adapter.edit) adapter.edit = timed(adapter.edit.bind(adapter));
  return adapter;
}
