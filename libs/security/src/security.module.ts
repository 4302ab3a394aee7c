import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestclaw/config';
import { DbModule } from '@nestclaw/db';
import { ApiPairingService } from './api-pairing.service';
import { ApiTokenService } from './api-token.service';
import { ChannelAccessService } from './channel-access.service';
import { PairedTokenService } from './paired-token.service';
import { SensitiveConfigService } from './sensitive-config.service';

@Module({
  imports: [ConfigModule, DbModule],
  providers: [ApiTokenService, PairedTokenService, ApiPairingService, ChannelAccessService, SensitiveConfigService],
  exports: [ApiTokenService, PairedTokenService, ApiPairingService, ChannelAccessService, SensitiveConfigService],
})
export class SecurityModule {}
