import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { z } from 'zod';
import { ApiPairingService, ChannelAccessService, Principal, SCOPES } from '@nestclaw/security';
import { CurrentPrincipal } from '../auth/principal.decorator';
import { Public } from '../auth/public.decorator';
import { RequireScope } from '../auth/require-scope.decorator';
import { ZodPipe } from '../http/zod-validation.pipe';

const pairBody = z.object({ code: z.string().regex(/^\s*\d{6}\s*$/, 'code must be 6 digits'), name: z.string().trim().min(1).max(100) });
const approveBody = z.object({ channel: z.string().min(1).max(40), code: z.string().min(4).max(20) });
const codeBody = z.object({ scopes: z.array(z.enum(SCOPES)).min(1).default(['chat']) }).prefault({});
const listQuery = z.object({ channel: z.string().min(1).max(40).optional(), status: z.enum(['pending', 'denied']).default('pending') });

@Controller('v1')
export class PairingController {
  constructor(
    private readonly api: ApiPairingService,
    private readonly channels: ChannelAccessService,
  ) {}

  /** A client trades the 6-digit code from `nestclaw pair` for a scoped token (shown only here). */
  @Public()
  @Post('pair')
  @HttpCode(201)
  async pair(@Body(new ZodPipe(pairBody)) body: z.output<typeof pairBody>) {
    const { token, info } = await this.api.redeem(body.code, body.name);
    return { token, id: info.id, name: info.name, scopes: info.scopes };
  }

  /** What `nestclaw pair` does, for an owner already holding a token. */
  @RequireScope('admin')
  @Post('pair/codes')
  @HttpCode(201)
  async createCode(@Body(new ZodPipe(codeBody)) body: z.output<typeof codeBody>) {
    const { code, expiresAt } = await this.api.createCode(body.scopes);
    return { code, expiresAt: expiresAt.toISOString(), scopes: body.scopes };
  }

  @RequireScope('admin')
  @Get('pairing')
  async list(@Query(new ZodPipe(listQuery)) q: z.output<typeof listQuery>) {
    return { requests: q.status === 'denied' ? await this.channels.denied(q.channel) : await this.channels.pending(q.channel) };
  }

  /** Adds the stranger behind a channel pairing code to that channel's allowlist. */
  @RequireScope('admin')
  @Post('pairing/approve')
  @HttpCode(200)
  async approve(@Body(new ZodPipe(approveBody)) body: z.output<typeof approveBody>, @CurrentPrincipal() who: Principal) {
    const approved = await this.channels.approve(body.channel, body.code, who.name);
    return { approved };
  }

  /** Turns a stranger's channel pairing code down: they are not added, the code ends, the request keeps who denied it. */
  @RequireScope('admin')
  @Post('pairing/deny')
  @HttpCode(200)
  async deny(@Body(new ZodPipe(approveBody)) body: z.output<typeof approveBody>, @CurrentPrincipal() who: Principal) {
    const request = await this.channels.deny(body.channel, body.code, who.name);
    return { denied: true, request };
  }
}
