import { DynamicModule, INestApplicationContext, LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';

/**
 * A Nest application context for one command. `abortOnError: false` makes boot failures (bad config,
 * unreachable database) come back as a thrown error the command can report in one line, instead of
 * Nest printing a stack trace and exiting.
 */
export function createCliContext(module: DynamicModule, logger: LoggerService | false = false): Promise<INestApplicationContext> {
  return NestFactory.createApplicationContext(module, { logger, abortOnError: false });
}

/**
 * Shows `log`/`debug`/`warn` lines from the chosen logger contexts as plain progress lines and drops the
 * rest (Nest's own boot chatter, errors the command reports itself). Debug is shown: a gateway keeps each
 * migration's line at debug, where a command run to migrate wants every one.
 */
export class ProgressLogger implements LoggerService {
  constructor(private readonly contexts: readonly string[]) {}

  log(message: unknown, ...params: unknown[]): void {
    if (this.shows(params)) process.stdout.write(`  ${String(message)}\n`);
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.log(message, ...params);
  }

  warn(message: unknown, ...params: unknown[]): void {
    if (this.shows(params)) process.stderr.write(`  warning: ${String(message)}\n`);
  }

  error(): void {
    // reported by the command itself, without a stack trace
  }

  private shows(params: unknown[]): boolean {
    const context = params[params.length - 1];
    return typeof context === 'string' && this.contexts.includes(context);
  }
}
