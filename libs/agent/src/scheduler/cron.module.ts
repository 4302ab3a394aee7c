import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestclaw/config';
import { DbModule } from '@nestclaw/db';
import { CronService } from './cron.service';
import { JobOutputPort } from './job-output.port';
import { ScheduledJobRepository } from './scheduled-job.repository';
import { SchedulerClock } from './scheduler.clock';

/**
 * Jobs as people manage them, without the scheduler that runs them: what `nestclaw cron` needs,
 * whether or not a gateway runs. (The gateway gets CronService from AgentModule, whose JobOutputPort
 * the channel lib attaches to; here nothing is attached and no answer is delivered.)
 */
@Module({
  imports: [ConfigModule, DbModule],
  providers: [CronService, ScheduledJobRepository, SchedulerClock, JobOutputPort],
  exports: [CronService],
})
export class CronModule {}
