import { ConsoleLogger, LogLevel } from '@nestjs/common';
import { NestclawConfig, redactSecrets, secretValues } from '@nestclaw/config';

/**
 * Nest's console logger with every secret of the running configuration (the values config.schema.ts
 * marks `secret`: API keys, bot tokens, the database URL) replaced by [redacted] in messages and stack
 * traces, whoever logs them (an SDK error that echoes a key, a connection error with the URL).
 */
export class RedactingLogger extends ConsoleLogger {
  private seen?: NestclawConfig;
  private secrets: string[] = [];

  constructor(private readonly config: () => NestclawConfig) {
    super();
  }

  private currentSecrets(): string[] {
    const config = this.config();
    // Re-collected only when the configuration object changes (a reload), not on every line.
    if (config !== this.seen) {
      this.seen = config;
      this.secrets = secretValues(config);
    }
    return this.secrets;
  }

  protected override stringifyMessage(message: unknown, logLevel: LogLevel): string {
    return redactSecrets(String(super.stringifyMessage(message, logLevel)), this.currentSecrets());
  }

  protected override printStackTrace(stack: string): void {
    super.printStackTrace(stack ? redactSecrets(stack, this.currentSecrets()) : stack);
  }
}
