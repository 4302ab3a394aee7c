import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestclaw/config';
import { DbModule } from '@nestclaw/db';
import { ApiTokenService } from './api-token.service';
import { PrincipalResolver } from './principal.resolver';
import { SecurityAccessModule } from './security-access.module';
import { WebLoginCodeRepository } from './web-login-code.repository';
import { WebSessionService } from './web-session.service';

/**
 * The gateway's security: its own API token, who a bearer token or a web session cookie belongs to,
 * and everything in SecurityAccessModule.
 */
@Module({
  imports: [ConfigModule, DbModule, SecurityAccessModule],
  providers: [ApiTokenService, PrincipalResolver, WebSessionService, WebLoginCodeRepository],
  exports: [ApiTokenService, PrincipalResolver, WebSessionService, SecurityAccessModule],
})
export class SecurityModule {}
