import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { z } from 'zod';
import { CronService } from '@nestclaw/agent';
import type { Principal } from '@nestclaw/security';
import { CurrentPrincipal } from '../auth/principal.decorator';
import { sessionScopeOf } from '../auth/principal-scope';
import { ZodPipe } from '../http/zod-validation.pipe';

const newJob = z
  .object({
    schedule: z.unknown(),
    message: z.string().min(1).max(4000),
    agentId: z.string().min(1).optional(),
    sessionId: z.string().min(1).max(200).optional(),
  })
  .strict();

const runsQuery = z
  .object({
    /** Only the latest runs (oldest first still); without it, all of them. */
    limit: z.coerce.number().int().min(1).max(500).optional(),
  })
  .strict();

/** Scheduled jobs. A paired token sees and removes only its own; the owner sees all. */
@Controller('v1/cron')
export class CronController {
  constructor(private readonly cron: CronService) {}

  @Get()
  async list(@CurrentPrincipal() principal: Principal) {
    return { jobs: await this.cron.list(sessionScopeOf(principal)) };
  }

  @Post()
  @HttpCode(201)
  add(@Body(new ZodPipe(newJob)) body: z.output<typeof newJob>, @CurrentPrincipal() principal: Principal) {
    return this.cron.add(body, sessionScopeOf(principal));
  }

  @Get(':id/runs')
  async runs(
    @Param('id') id: string,
    @Query(new ZodPipe(runsQuery)) q: z.output<typeof runsQuery>,
    @CurrentPrincipal() principal: Principal,
  ) {
    return { runs: await this.cron.runs(id, sessionScopeOf(principal), q.limit) };
  }

  /** Runs the job once at the scheduler's next tick; its schedule continues after. */
  @Post(':id/run')
  @HttpCode(202)
  async runNow(@Param('id') id: string, @CurrentPrincipal() principal: Principal) {
    await this.cron.runNow(id, sessionScopeOf(principal));
    return { queued: id };
  }

  @Post(':id/pause')
  @HttpCode(200)
  pause(@Param('id') id: string, @CurrentPrincipal() principal: Principal) {
    return this.cron.pause(id, sessionScopeOf(principal));
  }

  @Post(':id/resume')
  @HttpCode(200)
  resume(@Param('id') id: string, @CurrentPrincipal() principal: Principal) {
    return this.cron.resume(id, sessionScopeOf(principal));
  }

  @Delete(':id')
  async remove(@Param('id') id: string, @CurrentPrincipal() principal: Principal) {
    await this.cron.remove(id, sessionScopeOf(principal));
    return { deleted: id };
  }
}
