import type { FastifyReply } from 'fastify';

/** An AbortController that fires if the client disconnects before the response is complete. */
export function abortOnDisconnect(reply: FastifyReply): AbortController {
  const controller = new AbortController();
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return controller;
}
