import { DynamicModule, Module } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestclaw/config';
import { Leases } from './cluster/lease.service';
import { ReplicaRegistry } from './cluster/replica.registry';
import { DatabaseNotifications } from './database-notifications';
import { DatabaseOptions, DatabaseService } from './database.service';

/** Injection token of the composition root's DatabaseOptions (DbModule.forRoot). */
export const DATABASE_OPTIONS = Symbol('DATABASE_OPTIONS');

/** Whether this process migrates while connecting; set once by the composition root (the only global here). */
@Module({})
class DbOptionsModule {}

/**
 * DatabaseService, DatabaseNotifications, ReplicaRegistry and Leases, one each per process: every module that uses them
 * imports DbModule (Nest keeps one instance of a static module's providers).
 */
@Module({
  imports: [ConfigModule],
  providers: [
    {
      provide: DatabaseService,
      useFactory: (config: ConfigService, options?: DatabaseOptions) => DatabaseService.connect(config, options ?? { migrate: true }),
      inject: [ConfigService, { token: DATABASE_OPTIONS, optional: true }],
    },
    { provide: DatabaseNotifications, useFactory: (db: DatabaseService) => new DatabaseNotifications(db), inject: [DatabaseService] },
    {
      provide: ReplicaRegistry,
      useFactory: (db: DatabaseService, options?: DatabaseOptions) => new ReplicaRegistry(db, options?.replica ?? false),
      inject: [DatabaseService, { token: DATABASE_OPTIONS, optional: true }],
    },
    {
      provide: Leases,
      useFactory: (db: DatabaseService, replicas: ReplicaRegistry) => new Leases(db, replicas),
      inject: [DatabaseService, ReplicaRegistry],
    },
  ],
  exports: [DatabaseService, DatabaseNotifications, ReplicaRegistry, Leases],
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
