import type { LogLevel } from '@nestjs/common';
import { NestclawConfig, secretValues } from '@nestclaw/config';
import { PinoNestLogger } from '@nestclaw/observability';

/** Every secret value in the config and environment: scrubbed from log text wherever it appears. */
export function configSecrets(config: NestclawConfig, env: NodeJS.ProcessEnv): (string | undefined)[] {
  const fromDbUrl = (url?: string) => (url ? /\/\/[^:/@]+:([^@]+)@/.exec(url)?.[1] : undefined);
  // The values config.schema.ts marks `secret` (API keys, bot tokens, the database URL), plus env-only ones.
  return [...secretValues(config), env.NESTCLAW_TOKEN, fromDbUrl(config.database.url), fromDbUrl(env.DATABASE_URL)];
}

/** The process logger: pino JSON (pretty on a terminal), ids of the current turn, secrets removed. */
export function gatewayLogger(config: NestclawConfig, env: NodeJS.ProcessEnv, levels: LogLevel[]): PinoNestLogger {
  const logger = new PinoNestLogger({ levels, format: config.observability.logs.format, redact: config.observability.logs.redact });
  logger.scrubber.setSecrets(configSecrets(config, env));
  return logger;
}
