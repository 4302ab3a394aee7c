import { Controller, Get } from '@nestjs/common';
import { HeartbeatStatusService } from '@nestclaw/agent';
import { RequireScope } from '../auth/require-scope.decorator';

/**
 * Each agent's heartbeat as the Jobs page shows it (admin: it shows every agent's settings and spend).
 * Read only: a heartbeat is turned on, off or re-timed in `agents.<id>.heartbeat` (the config).
 */
@RequireScope('admin')
@Controller('v1/heartbeats')
export class HeartbeatsController {
  constructor(private readonly heartbeats: HeartbeatStatusService) {}

  @Get()
  async list() {
    return { heartbeats: await this.heartbeats.list() };
  }
}
