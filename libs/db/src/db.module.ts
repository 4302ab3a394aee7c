import { DynamicModule, Module } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestclaw/config';
import { DatabaseOptions, DatabaseService } from './database.service';

/** Injection token of the composition root's DatabaseOptions (DbModule.forRoot). */
export const DATABASE_OPTIONS = Symbol('DATABASE_OPTIONS');

/** Whether this process migrates while connecting; set once by the composition root (the only global here). */
@Module({})
class DbOptionsModule {}

/** DatabaseService, one per process: every module that uses it imports DbModule. */
@Module({
  imports: [ConfigModule],
  providers: [
    {
      provide: DatabaseService,
      useFactory: (config: ConfigService, options?: DatabaseOptions) => DatabaseService.connect(config, options ?? { migrate: true }),
      inject: [ConfigService, { token: DATABASE_OPTIONS, optional: true }],
    },
  ],
  exports: [DatabaseService],
})
export class DbModule {
  /** For the composition root: the gateway migrates while connecting; `nestclaw doctor` does not. */
  static forRoot(options: DatabaseOptions = { migrate: true }): DynamicModule {
    return {
      module: DbOptionsModule,
      global: true,
      providers: [{ provide: DATABASE_OPTIONS, useValue: options }],
      exports: [DATABASE_OPTIONS],
    };
  }
}
