import { Controller, Delete, Get, Param } from '@nestjs/common';
import { PairedTokenService } from '@nestclaw/security';
import { RequireScope } from '../auth/require-scope.decorator';

/** Paired API tokens: list (never the token itself) and revoke. */
@Controller('v1/tokens')
@RequireScope('admin')
export class TokensController {
  constructor(private readonly tokens: PairedTokenService) {}

  @Get()
  async list() {
    return { tokens: await this.tokens.list() };
  }

  @Delete(':id')
  async revoke(@Param('id') id: string) {
    return { revoked: await this.tokens.revoke(id) };
  }
}
