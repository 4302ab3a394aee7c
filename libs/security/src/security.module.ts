import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestclaw/config';
import { ApiTokenService } from './api-token.service';
import { SecurityAccessModule } from './security-access.module';

/** The gateway's security: its own API token plus everything in SecurityAccessModule. */
@Module({
  imports: [ConfigModule, SecurityAccessModule],
  providers: [ApiTokenService],
  exports: [ApiTokenService, SecurityAccessModule],
})
export class SecurityModule {}
