import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestclaw/config';
import { ApiTokenService } from './api-token.service';
import { PrincipalResolver } from './principal.resolver';
import { SecurityAccessModule } from './security-access.module';

/** The gateway's security: its own API token, who a bearer token belongs to, and everything in SecurityAccessModule. */
@Module({
  imports: [ConfigModule, SecurityAccessModule],
  providers: [ApiTokenService, PrincipalResolver],
  exports: [ApiTokenService, PrincipalResolver, SecurityAccessModule],
})
export class SecurityModule {}
