import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestclaw/config';
import { DbModule } from '@nestclaw/db';
import { ApiPairingRepository } from './api-pairing.repository';
import { ApiPairingService } from './api-pairing.service';
import { ChannelAccessRepository } from './channel-access.repository';
import { ChannelAccessService } from './channel-access.service';
import { PairedTokenRepository } from './paired-token.repository';
import { PairedTokenService } from './paired-token.service';
import { RateLimitRepository } from './rate-limit.repository';
import { SensitiveConfigService } from './sensitive-config.service';
import { SharedRateLimiter } from './shared-rate-limiter.service';
import { WebSessionEvents } from './web-session.events';
import { WebSessionRepository } from './web-session.repository';

/**
 * Who may get in: paired tokens, API pairing codes, channel allowlists, deployment-wide rate limits. Shared by the gateway
 * (through SecurityModule) and the CLI's access commands, which must not touch the gateway's own
 * token (ApiTokenService creates it on first start).
 */
@Module({
  imports: [ConfigModule, DbModule],
  providers: [
    PairedTokenService,
    ApiPairingService,
    ChannelAccessService,
    SensitiveConfigService,
    PairedTokenRepository,
    ApiPairingRepository,
    ChannelAccessRepository,
    SharedRateLimiter,
    RateLimitRepository,
    WebSessionRepository,
    WebSessionEvents,
  ],
  exports: [
    PairedTokenService,
    ApiPairingService,
    ChannelAccessService,
    SensitiveConfigService,
    SharedRateLimiter,
    // For WebSessionService (SecurityModule): revocation here and sign-in there share the sessions.
    WebSessionRepository,
    WebSessionEvents,
  ],
})
export class SecurityAccessModule {}
