import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { ToolError } from '../tool.port';

/** Resolves a host name to every address it has. Injected in tests. */
export type Resolver = (host: string) => Promise<string[]>;

export const systemResolver: Resolver = async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

export interface SsrfGuardOptions {
  /** Hosts (exact names, or IP literals) allowed even when they are private. */
  allowHosts: readonly string[];
  resolve?: Resolver;
}

/** Only globally routable unicast addresses are fair game for a tool. */
export function isPublicAddress(address: string): boolean {
  let ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv6') {
    const v6 = ip as ipaddr.IPv6;
    // IPv4-mapped (::ffff:a.b.c.d) and the deprecated IPv4-compatible form (::a.b.c.d, which
    // ipaddr.js calls unicast): judge the IPv4 address inside.
    if (v6.isIPv4MappedAddress()) ip = v6.toIPv4Address();
    else if (v6.parts.slice(0, 6).every((p) => p === 0)) {
      const [hi, lo] = v6.parts.slice(6);
      ip = new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
    }
  }
  return ip.range() === 'unicast';
}

/**
 * Refuses private, loopback, link-local (cloud metadata), multicast and reserved destinations,
 * after DNS resolution. Returns the address to connect to, so the connection cannot be re-resolved
 * to something else (DNS rebinding).
 */
export class SsrfGuard {
  private readonly resolve: Resolver;
  private readonly allow: Set<string>;

  constructor(options: SsrfGuardOptions) {
    this.resolve = options.resolve ?? systemResolver;
    this.allow = new Set(options.allowHosts.map((h) => h.toLowerCase()));
  }

  async check(url: URL): Promise<string> {
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new ToolError(`only http and https URLs are allowed, not ${url.protocol}`);
    const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    const allowed = this.allow.has(host) || this.allow.has(`${host}:${url.port}`);
    if (isIP(host)) {
      if (!allowed && !isPublicAddress(host)) throw new ToolError(`refused: ${host} is a private, loopback or link-local address`);
      return host;
    }
    let addresses: string[];
    try {
      addresses = await this.resolve(host);
    } catch (e) {
      throw new ToolError(`cannot resolve ${host}: ${(e as Error).message}`);
    }
    if (addresses.length === 0) throw new ToolError(`cannot resolve ${host}`);
    if (!allowed) {
      const bad = addresses.find((a) => !isPublicAddress(a));
      if (bad) throw new ToolError(`refused: ${host} resolves to ${bad}, a private, loopback or link-local address`);
    }
    return addresses[0];
  }
}
