import { Controller, Get } from '@nestjs/common';
import { ChannelStatusService } from '@nestclaw/channel';
import { RequireScope } from '../auth/require-scope.decorator';

/** Every configured chat channel: connection state, the replica receiving for it, last events, pending pairings; who may use it. */
@Controller('v1/channels')
@RequireScope('admin')
export class ChannelsController {
  constructor(private readonly channels: ChannelStatusService) {}

  @Get()
  async list() {
    return { channels: await this.channels.list() };
  }

  /** Who may talk to the assistant on each channel: its allowlist (configured and paired) and what strangers meet. */
  @Get('access')
  async access() {
    return { channels: await this.channels.allowlists() };
  }
}
