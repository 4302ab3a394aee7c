import { Module } from '@nestjs/common';
import { DbModule } from '@nestclaw/db';
import { SessionRepository } from './session.repository';
import { SessionsService } from './sessions.service';

/** The admin API's reads of sessions and transcripts (Prisma); the turn's own writes are TurnRepository's. */
@Module({
  imports: [DbModule],
  providers: [SessionRepository, SessionsService],
  exports: [SessionsService],
})
export class SessionsModule {}
