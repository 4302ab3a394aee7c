import type { Server } from 'node:http';

/** How often a closing gateway closes the keep-alive connections that went idle since the last look. */
const SWEEP_MS = 50;
/** After this long, connections still busy (a stalled upload, a client not reading) are cut. */
export const CLOSE_DEADLINE_MS = 10_000;

/**
 * Runs `close` (Nest's shutdown) while draining the HTTP server. Fastify closes the connections idle
 * when it starts closing, but a response finished after that (a turn answering 499 as its approval
 * wait is cancelled by the shutdown) leaves its keep-alive connection open for Fastify's 72 s
 * keep-alive timeout, and `close` waits for it: a SIGTERM behind a load balancer, or a restart, took
 * 70 s. So idle connections are closed as they appear, and all of them once the deadline passes.
 */
export async function closeDraining(server: Server, close: () => Promise<void>, deadlineMs = CLOSE_DEADLINE_MS): Promise<void> {
  const sweep = setInterval(() => server.closeIdleConnections(), SWEEP_MS);
  const deadline = setTimeout(() => server.closeAllConnections(), deadlineMs);
  try {
    await close();
  } finally {
    clearInterval(sweep);
    clearTimeout(deadline);
  }
}
