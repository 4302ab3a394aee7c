import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { z } from 'zod';
import { SensitiveConfigService } from '@nestclaw/security';
import { RequireScope } from '../auth/require-scope.decorator';
import { ZodPipe } from '../http/zod-validation.pipe';

const confirmBody = z.object({ code: z.string().min(4).max(20) });

/**
 * Security-sensitive settings (allowlists, approvers, group policy, rate limits) changed in the
 * config file wait here until the owner confirms the code the gateway printed on its terminal.
 */
@Controller('v1/config/security')
@RequireScope('admin')
export class SecurityConfigController {
  constructor(private readonly settings: SensitiveConfigService) {}

  @Get()
  state() {
    return { pending: this.settings.pendingChange() };
  }

  /** Re-reads the file now (the watcher does this on change when config watching is on). */
  @Post('check')
  @HttpCode(200)
  async check() {
    return { pending: await this.settings.check() };
  }

  @Post('confirm')
  @HttpCode(200)
  confirm(@Body(new ZodPipe(confirmBody)) body: z.output<typeof confirmBody>) {
    return { applied: this.settings.confirm(body.code) };
  }
}
