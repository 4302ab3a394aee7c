import { createServer } from 'node:net';
import { NestclawError } from '@nestclaw/common';

/** The one-line answer to EADDRINUSE: which address, and the two ways out. */
export function addressInUse(host: string, port: number): NestclawError {
  const where = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  return new NestclawError(
    'conflict',
    `${where} is already in use: stop the other process using it (is nestclaw already running?), or choose another port with PORT=<port>, --port <port> or server.port in config.yaml`,
  );
}

/**
 * Fails with addressInUse when host:port cannot be bound, before anything is started (the embedded
 * database takes seconds). A port taken between this check and the real listen still fails there.
 */
export async function assertAddressFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (e: NodeJS.ErrnoException) => reject(e.code === 'EADDRINUSE' ? addressInUse(host, port) : e));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  });
}
