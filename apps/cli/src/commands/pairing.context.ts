import { INestApplicationContext, Module } from '@nestjs/common';
import { CronModule } from '@nestclaw/agent';
import { ConversationLogService } from '@nestclaw/channel';
import { ConfigModule } from '@nestclaw/config';
import { DatabaseService, DbModule } from '@nestclaw/db';
import { SecurityAccessModule } from '@nestclaw/security';
import { createCliContext } from '../cli-context';

/**
 * The services of the commands that work on the database directly: the same lib modules the gateway
 * uses (no transport, no scheduler loop), built by Nest. The conversation log has no module of its own
 * outside ChannelModule (which starts the channels), so its service is provided here over the database.
 */
@Module({
  imports: [ConfigModule.forRoot({ watch: false }), DbModule.forRoot({ migrate: true }), DbModule, SecurityAccessModule, CronModule],
  providers: [{ provide: ConversationLogService, useFactory: ConversationLogService.forDatabase, inject: [DatabaseService] }],
})
class DatabaseCliModule {}

/**
 * Config, database and services for the commands that write to the tables the running gateway reads
 * (pairing, pair, token list/revoke, log export, cron), so they work whether or not it is running.
 */
export async function withServices<T>(fn: (app: INestApplicationContext) => Promise<T>): Promise<T> {
  const app = await createCliContext({ module: DatabaseCliModule });
  try {
    return await fn(app);
  } finally {
    await app.close();
  }
}
