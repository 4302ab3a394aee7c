import { Module } from '@nestjs/common';
import { ApiPairingService } from './api-pairing.service';
import { ApiTokenService } from './api-token.service';
import { ChannelAccessService } from './channel-access.service';
import { PairedTokenService } from './paired-token.service';
import { SensitiveConfigService } from './sensitive-config.service';

/** Needs ConfigModule and DbModule (both global) from the composition root. */
@Module({
  providers: [ApiTokenService, PairedTokenService, ApiPairingService, ChannelAccessService, SensitiveConfigService],
  exports: [ApiTokenService, PairedTokenService, ApiPairingService, ChannelAccessService, SensitiveConfigService],
})
export class SecurityModule {}
