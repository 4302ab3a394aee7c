import { DynamicModule, Module } from '@nestjs/common';
import type { NestclawConfig } from './config.schema';
import { ConfigEditor } from './config-editor.service';
import { CONFIG_OPTIONS, ConfigOptions, ConfigService } from './config.service';
import { defaultConfigPath, nestclawHome } from './nestclaw-home';

export interface ConfigModuleOptions {
  /** `--config`; default `$NESTCLAW_HOME/config.yaml`. */
  path?: string;
  env?: NodeJS.ProcessEnv;
  watch?: boolean;
  /** Already loaded and validated from `path` (the gateway does so before Nest starts): not read again. */
  loaded?: NestclawConfig;
}

/**
 * The process's options (path, env, watch), set once by the composition root. This value is the
 * only global (docs/adr/0007-module-boundaries.md): a module that uses ConfigService imports
 * ConfigModule itself.
 */
@Module({})
class ConfigOptionsModule {}

/** ConfigService, one per process: every module that uses it imports ConfigModule. */
@Module({ providers: [ConfigService, ConfigEditor], exports: [ConfigService, ConfigEditor] })
export class ConfigModule {
  /** For the composition root: where the config file is and whether to watch it. */
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
      module: ConfigOptionsModule,
      global: true,
      providers: [{ provide: CONFIG_OPTIONS, useValue: options }],
      exports: [CONFIG_OPTIONS],
    };
  }
}
