import { DynamicModule, Global, Module } from '@nestjs/common';
import { DiscoveryModule, DiscoveryService } from '@nestjs/core';
import type { NestclawConfig } from './config.schema';
import { ConfigOptions, ConfigService } from './config.service';
import { defaultConfigPath, nestclawHome } from './nestclaw-home';

export interface ConfigModuleOptions {
  /** `--config`; default `$NESTCLAW_HOME/config.yaml`. */
  path?: string;
  env?: NodeJS.ProcessEnv;
  watch?: boolean;
  /** Already loaded and validated from `path` (the gateway does so before Nest starts): not read again. */
  loaded?: NestclawConfig;
}

@Global()
@Module({})
export class ConfigModule {
  static forRoot(opts: ConfigModuleOptions = {}): DynamicModule {
    const env = opts.env ?? process.env;
    const options: ConfigOptions = {
      env,
      home: nestclawHome(env),
      path: opts.path ?? defaultConfigPath(env),
      watch: opts.watch ?? true,
      loaded: opts.loaded,
    };
    return {
      module: ConfigModule,
      imports: [DiscoveryModule],
      providers: [
        {
          provide: ConfigService,
          useFactory: (discovery: DiscoveryService) => new ConfigService(options, discovery),
          inject: [DiscoveryService],
        },
      ],
      exports: [ConfigService],
    };
  }
}
