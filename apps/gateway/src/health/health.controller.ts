import { Controller, Get, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { ChannelRegistry } from '@nestclaw/channel';
import { DatabaseService } from '@nestclaw/db';
import { DoctorService } from '@nestclaw/doctor';
import { Public } from '../auth/public.decorator';
import { RequireScope } from '../auth/require-scope.decorator';

@Controller()
export class HealthController {
  constructor(
    private readonly db: DatabaseService,
    private readonly doctor: DoctorService,
    private readonly channels: ChannelRegistry,
  ) {}

  /** 200 when the database answers, 503 otherwise; JSON either way. No token needed. */
  @Public()
  @Get('health')
  async health(@Res() reply: FastifyReply): Promise<void> {
    const db = await this.db.ping();
    const body = { status: db.ok ? 'ok' : 'unavailable', database: db.ok ? 'up' : 'down', uptimeSec: Math.round(process.uptime()) };
    await reply.status(db.ok ? 200 : 503).send(body);
  }

  /** Liveness: the process answers (the event loop runs). Never touches the database, so a database outage does not restart pods. */
  @Public()
  @Get('health/live')
  live() {
    return { status: 'ok', uptimeSec: Math.round(process.uptime()) };
  }

  /**
   * Readiness: 200 only when the database answers, every migration this version ships is
   * applied, and each channel this replica owns (holds its lease) is connected. While this process
   * migrates at start-up it does not listen yet; while another instance still holds the migration
   * lock, this one reports 503. A replica that owns no channel is ready without one: another
   * replica receives for it.
   */
  @Public()
  @Get('health/ready')
  async ready(@Res() reply: FastifyReply): Promise<void> {
    const db = await this.db.ping();
    const pending = db.ok ? await this.db.pendingMigrations().catch(() => ['unknown']) : [];
    const owned = this.channels.channelStates().filter((c) => c.owner);
    const connecting = owned.filter((c) => !c.connected).map((c) => c.channel);
    const ok = db.ok && pending.length === 0 && connecting.length === 0;
    await reply.status(ok ? 200 : 503).send({
      status: ok ? 'ready' : 'not_ready',
      database: db.ok ? 'up' : 'down',
      pendingMigrations: pending.length,
      channels: Object.fromEntries(owned.map((c) => [c.channel, c.connected ? 'connected' : 'connecting'])),
    });
  }

  /** Every check `nestclaw doctor` runs, with what to do about failures. */
  @RequireScope('admin')
  @Get('doctor')
  doctorReport() {
    return this.doctor.run();
  }
}
