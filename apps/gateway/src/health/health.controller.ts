import { Controller, Get, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { DatabaseService } from '@nestclaw/db';
import { DoctorService } from '@nestclaw/doctor';
import { Public } from '../auth/public.decorator';
import { RequireScope } from '../auth/require-scope.decorator';

@Controller()
export class HealthController {
  constructor(
    private readonly db: DatabaseService,
    private readonly doctor: DoctorService,
  ) {}

  /** 200 when the database answers, 503 otherwise; JSON either way. No token needed. */
  @Public()
  @Get('health')
  async health(@Res() reply: FastifyReply): Promise<void> {
    const db = await this.db.ping();
    const body = { status: db.ok ? 'ok' : 'unavailable', database: db.ok ? 'up' : 'down', uptimeSec: Math.round(process.uptime()) };
    await reply.status(db.ok ? 200 : 503).send(body);
  }

  /** Every check `nestclaw doctor` runs, with what to do about failures. */
  @RequireScope('admin')
  @Get('doctor')
  doctorReport() {
    return this.doctor.run();
  }
}
