import { Module } from '@nestjs/common';
import { ApiTokenService } from './api-token.service';

@Module({ providers: [ApiTokenService], exports: [ApiTokenService] })
export class SecurityModule {}
