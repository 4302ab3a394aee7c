import { Controller, Get } from '@nestjs/common';
import { CliStatusService } from '@nestclaw/cli-bridge';
import { RequireScope } from '../auth/require-scope.decorator';

/** Configured coding CLIs and their tmux sessions: running or exited, busy, which chats drive them (`nestclaw cli list`). */
@Controller('v1/clis')
@RequireScope('admin')
export class ClisController {
  constructor(private readonly clis: CliStatusService) {}

  @Get()
  async list() {
    return { clis: await this.clis.list() };
  }
}
