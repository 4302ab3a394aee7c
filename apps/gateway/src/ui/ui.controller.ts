import { Controller, Get, Header, Param, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { NestclawError } from '@nestclaw/common';
import { Public } from '../auth/public.decorator';
import { NotInApi } from '../openapi/not-in-api.decorator';
import { sendIndex, uiBuilt } from './ui-files';

/** File names Vite writes under dist/ui/assets (content-hashed): nothing with a slash or a leading dot. */
const ASSET_NAME = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,200}$/;

/**
 * The control UI (apps/ui, docs/ui.md): its files are public because they hold no data; every API
 * call and the WebSocket they make needs the session. index.html is never cached (it names the
 * current assets); the assets have content-hashed names, so they are cached for a year.
 */
@Public()
@NotInApi()
@Controller()
export class UiController {
  /** The app's own paths (apps/ui/src/router.ts): each answers index.html and the app picks the page. */
  @Get()
  chat(@Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    return this.index(req, reply);
  }

  @Get('approvals')
  approvals(@Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    return this.index(req, reply);
  }

  @Get('sessions')
  sessions(@Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    return this.index(req, reply);
  }

  @Get('channels')
  channels(@Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    return this.index(req, reply);
  }

  @Get('usage')
  usage(@Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    return this.index(req, reply);
  }

  @Get('memory')
  memory(@Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    return this.index(req, reply);
  }

  @Get('jobs')
  jobs(@Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    return this.index(req, reply);
  }

  @Get('agents')
  agents(@Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    return this.index(req, reply);
  }

  @Get('settings')
  settings(@Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    return this.index(req, reply);
  }

  @Get('assets/:file')
  asset(@Param('file') file: string, @Res() reply: FastifyReply) {
    if (!ASSET_NAME.test(file) || !uiBuilt()) throw new NestclawError('not_found', `No UI asset "${file}"`);
    return reply.sendFile(`assets/${file}`, { maxAge: '365d', immutable: true });
  }

  @Get('favicon.svg')
  @Header('cache-control', 'public, max-age=86400')
  favicon(@Res() reply: FastifyReply) {
    if (!uiBuilt()) throw new NestclawError('not_found', 'No favicon: the control UI is not built');
    return reply.sendFile('favicon.svg', { cacheControl: false });
  }

  private index(req: FastifyRequest, reply: FastifyReply) {
    return sendIndex(req, reply);
  }
}
