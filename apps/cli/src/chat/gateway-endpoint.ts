import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultConfigPath, loadConfig, nestclawHome } from '@nestclaw/config';

/**
 * The gateway's WebSocket URL: `--url` (http(s) or ws(s)), else the configured server.host/port.
 * A wildcard bind address is reached through loopback.
 */
export function gatewayWsUrl(explicit?: string): string {
  let base = explicit;
  if (!base) {
    const { server } = loadConfig(defaultConfigPath()).config;
    const host = server.host === '0.0.0.0' ? '127.0.0.1' : server.host === '::' ? '::1' : server.host;
    base = `http://${host.includes(':') ? `[${host}]` : host}:${server.port}`;
  }
  const url = new URL(base.includes('://') ? base : `http://${base}`);
  if (url.protocol === 'http:') url.protocol = 'ws:';
  else if (url.protocol === 'https:') url.protocol = 'wss:';
  url.pathname = `${url.pathname.replace(/\/+$/, '').replace(/\/ws$/, '')}/ws`;
  return url.toString();
}

/** Same lookup as the gateway: `NESTCLAW_TOKEN`, else `$NESTCLAW_HOME/token`. */
export function clientToken(): { token?: string; tried: string } {
  if (process.env.NESTCLAW_TOKEN) return { token: process.env.NESTCLAW_TOKEN, tried: 'NESTCLAW_TOKEN' };
  const path = join(nestclawHome(), 'token');
  const token = existsSync(path) ? readFileSync(path, 'utf8').trim() : '';
  return { token: token || undefined, tried: path };
}
