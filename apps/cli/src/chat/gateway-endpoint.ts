import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultConfigPath, loadConfig, nestclawHome, readGatewayInfo } from '@nestclaw/config';

/**
 * The gateway's WebSocket URL: `--url` (http(s) or ws(s)), else the configured server.host/port.
 * A wildcard bind address is reached through loopback.
 */
export function gatewayWsUrl(explicit?: string): string {
  const url = new URL(explicit ? withScheme(explicit) : configuredBase());
  if (url.protocol === 'http:') url.protocol = 'ws:';
  else if (url.protocol === 'https:') url.protocol = 'wss:';
  url.pathname = `${url.pathname.replace(/\/+$/, '').replace(/\/ws$/, '')}/ws`;
  return url.toString();
}

/** The HTTP base (no trailing slash) of the gateway behind a `/ws` URL: the same server answers both. */
export function httpBaseOfWs(wsUrl: string): string {
  const url = new URL(wsUrl);
  url.protocol = url.protocol === 'wss:' ? 'https:' : 'http:';
  url.pathname = url.pathname.replace(/\/ws$/, '');
  return url.toString().replace(/\/+$/, '');
}

/**
 * The HTTP base of the gateway to talk to: `--url`, else the gateway started from this
 * `$NESTCLAW_HOME` (gateway.json), else the configured server.host/port; undefined when the config
 * file cannot be read either.
 */
export function runningGatewayBase(explicit?: string): string | undefined {
  if (explicit) return withScheme(explicit).replace(/\/+$/, '');
  const running = readGatewayInfo(nestclawHome());
  if (running) return running.url;
  try {
    return configuredBase();
  } catch {
    return undefined;
  }
}

function withScheme(url: string): string {
  return url.includes('://') ? url : `http://${url}`;
}

function configuredBase(): string {
  const { server } = loadConfig(defaultConfigPath()).config;
  const host = server.host === '0.0.0.0' ? '127.0.0.1' : server.host === '::' ? '::1' : server.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${server.port}`;
}

/** Same lookup as the gateway: `NESTCLAW_TOKEN`, else `$NESTCLAW_HOME/token`. */
export function clientToken(): { token?: string; tried: string } {
  if (process.env.NESTCLAW_TOKEN) return { token: process.env.NESTCLAW_TOKEN, tried: 'NESTCLAW_TOKEN' };
  const path = join(nestclawHome(), 'token');
  const token = existsSync(path) ? readFileSync(path, 'utf8').trim() : '';
  return { token: token || undefined, tried: path };
}
