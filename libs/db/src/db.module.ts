import { DynamicModule, Global, Module } from '@nestjs/common';
import { ConfigService } from '@nestclaw/config';
import { DatabaseOptions, DatabaseService } from './database.service';

@Global()
@Module({})
export class DbModule {
  static forRoot(options: DatabaseOptions = { migrate: true }): DynamicModule {
    return {
      module: DbModule,
      providers: [
        {
          provide: DatabaseService,
          useFactory: (config: ConfigService) => DatabaseService.connect(config, options),
          inject: [ConfigService],
        },
      ],
      exports: [DatabaseService],
    };
  }
}
