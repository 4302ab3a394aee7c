import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Written by a running gateway to `$NESTCLAW_HOME/gateway.json`, so the CLI can find it (even on a random port). */
export interface GatewayInfo {
  pid: number;
  url: string;
}

const FILE = 'gateway.json';

export function writeGatewayInfo(home: string, info: GatewayInfo): () => void {
  const path = join(home, FILE);
  writeFileSync(path, JSON.stringify(info), { mode: 0o600 });
  // Removed on close only if it is still ours (a second gateway on the same home may have replaced it).
  return () => {
    if (readGatewayInfo(home)?.pid === info.pid) rmSync(path, { force: true });
  };
}

/** The gateway started from this home, when its process is still alive. */
export function readGatewayInfo(home: string): GatewayInfo | undefined {
  const path = join(home, FILE);
  if (!existsSync(path)) return undefined;
  try {
    const info = JSON.parse(readFileSync(path, 'utf8')) as GatewayInfo;
    process.kill(info.pid, 0);
    return info;
  } catch {
    return undefined; // unreadable, or its process is gone
  }
}
