import { DynamicModule, Global, Module } from '@nestjs/common';
import { DiscoveryModule, DiscoveryService } from '@nestjs/core';
import { ConfigOptions, ConfigService } from './config.service';
import { defaultConfigPath, nestclawHome } from './nestclaw-home';

export interface ConfigModuleOptions {
  /** `--config`; default `$NESTCLAW_HOME/config.yaml`. */
  path?: string;
  env?: NodeJS.ProcessEnv;
  watch?: boolean;
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
