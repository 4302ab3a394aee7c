import { INestApplicationContext, Module } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestclaw/config';
import { DatabaseService, DbModule } from '@nestclaw/db';
import { SecurityAccessModule } from '@nestclaw/security';
import { createCliContext } from '../cli-context';

@Module({
  imports: [ConfigModule.forRoot({ watch: false }), DbModule.forRoot({ migrate: true }), ConfigModule, DbModule, SecurityAccessModule],
})
class AccessCliModule {}

/**
 * Config + database for the access commands (pairing, pair, token list/revoke, log export). They
 * write to the same tables the running gateway reads, so they work whether or not it is running.
 */
export async function withDatabase<T>(
  fn: (db: DatabaseService, config: ConfigService, app: INestApplicationContext) => Promise<T>,
): Promise<T> {
  const app = await createCliContext({ module: AccessCliModule });
  try {
    return await fn(app.get(DatabaseService), app.get(ConfigService), app);
  } finally {
    await app.close();
  }
}
