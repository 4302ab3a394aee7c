import fastifyStatic from '@fastify/static';
import type { FastifyAdapter } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '@nestclaw/common';

/** Where `npm run build` puts the control UI (Vite, apps/ui): the same folder from the bundle and from source. */
export function uiRoot(): string {
  return join(packageRoot(), 'dist', 'ui');
}

/** Looked up per request, so a gateway started before `npm run build` serves the UI once it exists. */
export function uiBuilt(root = uiRoot()): boolean {
  return existsSync(join(root, 'index.html'));
}

/**
 * Gives replies `sendFile` for the UI's files, without routes of its own (`serve: false`): the
 * routes are UiController's, so they are in Nest's route table with the others and their being
 * public is declared there. Its content-type, ETag, Last-Modified and range handling come from here.
 */
export function serveUiFiles(adapter: FastifyAdapter): void {
  void adapter.getInstance().register(fastifyStatic, { root: uiRoot(), serve: false, dotfiles: 'deny', index: false });
}

const NOT_BUILT = 'The control UI is not built: run `npm run build` (or `npm start`, which builds what is stale) and reload.';

/**
 * index.html, never cached (it names the current hashed assets). Without a build, a 503 (the gateway
 * works, this part of it is missing) that says the one fix: a page for a browser, JSON for the rest.
 */
export function sendIndex(req: FastifyRequest, reply: FastifyReply, root = uiRoot()): FastifyReply {
  if (!uiBuilt(root)) {
    reply.code(503).header('cache-control', 'no-store');
    if (/text\/html/.test(req.headers.accept ?? ''))
      return reply.type('text/html; charset=utf-8').send(`<!doctype html><title>nestclaw</title><h1>nestclaw</h1><p>${NOT_BUILT}</p>`);
    return reply.send({ error: { code: 'ui_not_built', message: NOT_BUILT } });
  }
  return reply.header('cache-control', 'no-cache').sendFile('index.html', root, { cacheControl: false });
}
