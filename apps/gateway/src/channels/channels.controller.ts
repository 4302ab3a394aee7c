import { Controller, Get } from '@nestjs/common';
import { ChannelStatusService } from '@nestclaw/channel';
import { RequireScope } from '../auth/require-scope.decorator';

/** Every configured chat channel: connection state, the replica receiving for it, last events, pending pairings. */
@Controller('v1/channels')
@RequireScope('admin')
export class ChannelsController {
  constructor(private readonly channels: ChannelStatusService) {}

  @Get()
  async list() {
    return { channels: await this.channels.list() };
  }
}
