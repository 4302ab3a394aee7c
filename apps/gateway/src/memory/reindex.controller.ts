import { Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ReindexService } from '@nestclaw/memory';
import { RequireScope } from '../auth/require-scope.decorator';

/** Rebuilds the derived memory index from Postgres; progress is readable while it runs. */
@RequireScope('admin')
@Controller('admin/reindex')
export class ReindexController {
  constructor(private readonly reindex: ReindexService) {}

  @Post()
  @HttpCode(202)
  start() {
    return this.reindex.start('requested through POST /admin/reindex');
  }

  @Get()
  progress() {
    return this.reindex.progress;
  }
}
