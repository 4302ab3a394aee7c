import { createServer } from 'node:net';

/**
 * A port free now on loopback (the kernel's pick), for a child process to bind right after: the embedded
 * PostgreSQL server, and the tests' replicas, balancer and Prometheus. Another process may take it in
 * between; callers that can fail on EADDRINUSE say so.
 */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
