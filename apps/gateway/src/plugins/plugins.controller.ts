import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { z } from 'zod';
import { PluginService } from '@nestclaw/plugin';
import { RequireScope } from '../auth/require-scope.decorator';
import { ZodPipe } from '../http/zod-validation.pipe';

const confirmBody = z.object({ code: z.string().min(4).max(20) });

/**
 * Plugins (docs/plugins.md): what each is, its state and tools; an untrusted plugin asking for
 * permissions starts once the owner confirms the code the gateway printed on its terminal. Enable and
 * disable apply now; reload re-reads one plugin from disk (after `nestclaw plugins install|trust` on the
 * host). There is no trust route: trusting code with the gateway's rights is the host owner's act alone.
 */
@Controller('v1/plugins')
@RequireScope('admin')
export class PluginsController {
  constructor(private readonly plugins: PluginService) {}

  @Get()
  list() {
    return { plugins: this.plugins.status() };
  }

  @Post(':name/confirm')
  @HttpCode(200)
  confirm(@Param('name') name: string, @Body(new ZodPipe(confirmBody)) body: z.output<typeof confirmBody>) {
    return { plugin: this.plugins.confirm(name, body.code) };
  }

  @Post(':name/enable')
  @HttpCode(200)
  enable(@Param('name') name: string) {
    return this.plugins.setEnabled(name, true);
  }

  @Post(':name/disable')
  @HttpCode(200)
  disable(@Param('name') name: string) {
    return this.plugins.setEnabled(name, false);
  }

  @Post(':name/reload')
  @HttpCode(200)
  reload(@Param('name') name: string) {
    return this.plugins.reload(name);
  }
}
