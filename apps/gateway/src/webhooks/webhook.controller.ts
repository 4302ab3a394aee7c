import { Body, Controller, Headers, HttpCode, Param, Post } from '@nestjs/common';
import type { IncomingHttpHeaders } from 'node:http';
import { WebhookIntake } from '@nestclaw/agent';
import { Public } from '../auth/public.decorator';

/**
 * Inbound webhooks (docs/webhooks.md). Public to the bearer guard: the HMAC signature over the raw
 * body, checked by WebhookIntake with the hook's own secret, is the authentication. The body arrives
 * as the bytes sent (http/raw-webhook-bodies.ts).
 */
@Controller('api/webhook')
export class WebhookController {
  constructor(private readonly intake: WebhookIntake) {}

  /** Starts a turn with the payload and answers 202 at once; the turn runs (and is delivered) in the background. */
  @Public()
  @Post(':id')
  @HttpCode(202)
  receive(@Param('id') id: string, @Body() body: Buffer | undefined, @Headers() headers: IncomingHttpHeaders) {
    return this.intake.receive({ hookId: id, body: Buffer.isBuffer(body) ? body : Buffer.alloc(0), headers });
  }
}
