import type { LoggerService, LogLevel } from '@nestjs/common';
import pino, { DestinationStream, Logger as Pino } from 'pino';
import { activeTraceId } from '../tracing/tracer';
import { currentLogContext } from './log-context';
import { SecretScrubber } from './secret-scrubber';

export interface PinoLoggerOptions {
  levels: LogLevel[];
  /** json (default off a terminal), pretty (default on one). */
  format?: 'auto' | 'json' | 'pretty';
  /** Extra object paths to redact (pino's redact syntax), e.g. `req.headers.cookie`. */
  redact?: string[];
  destination?: DestinationStream;
  isTty?: boolean;
}

const PINO_LEVEL: Record<LogLevel, pino.Level> = {
  fatal: 'fatal',
  error: 'error',
  warn: 'warn',
  log: 'info',
  debug: 'debug',
  verbose: 'trace',
};
const ORDER: LogLevel[] = ['verbose', 'debug', 'log', 'warn', 'error', 'fatal'];
const DEFAULT_REDACT = [
  'authorization',
  'headers.authorization',
  'req.headers.authorization',
  'apiKey',
  'api_key',
  'token',
  'password',
  '*.api_key',
  '*.token',
  '*.password',
];

/**
 * Nest's own start-up chatter (each module initialised, each route and WebSocket message mapped,
 * ~100 lines): debug, so the start-up log at the default level is main.ts's short summary.
 */
const NEST_BOOTSTRAP_CONTEXTS = new Set([
  'NestFactory',
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'WebSocketsController',
  'NestApplication',
]);

/**
 * Nest's logger on pino: one JSON object per line with the request, session, turn and trace ids of
 * the work being done, secrets removed; pretty text on a terminal. Nest's `Logger.overrideLogger(levels)`
 * (the config hot reload) lands in setLogLevels, so `log.level` stays hot.
 */
export class PinoNestLogger implements LoggerService {
  readonly pino: Pino;
  readonly scrubber = new SecretScrubber();
  private enabled: Set<LogLevel>;

  constructor(options: PinoLoggerOptions) {
    this.enabled = new Set(options.levels);
    const pretty = options.format === 'pretty' || ((options.format ?? 'auto') === 'auto' && (options.isTty ?? process.stdout.isTTY));
    const destination =
      options.destination ??
      (pretty
        ? // eslint-disable-next-line @typescript-eslint/no-require-imports
          (require('pino-pretty') as (o: object) => DestinationStream)({
            colorize: true,
            sync: true,
            // One line per entry on a terminal: "INFO: [Gateway] listening on …".
            ignore: 'pid,hostname,context',
            messageFormat: '{if context}[{context}] {end}{msg}',
          })
        : pino.destination({ dest: 1, sync: true }));
    this.pino = pino(
      {
        level: 'trace',
        base: { pid: process.pid },
        timestamp: pino.stdTimeFunctions.isoTime,
        redact: { paths: [...DEFAULT_REDACT, ...(options.redact ?? [])], censor: '[redacted]' },
        mixin: () => {
          const ids = currentLogContext();
          const traceId = activeTraceId();
          return traceId ? { ...ids, traceId } : { ...ids };
        },
      },
      destination,
    );
  }

  setLogLevels(levels: LogLevel[]): void {
    this.enabled = new Set(levels);
  }

  isEnabled(level: LogLevel): boolean {
    return this.enabled.has(level);
  }

  log(message: unknown, ...params: unknown[]): void {
    this.write('log', message, params);
  }
  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }
  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }
  verbose(message: unknown, ...params: unknown[]): void {
    this.write('verbose', message, params);
  }
  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }
  /** Nest calls error(message, stack?, context?). */
  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }

  private write(wanted: LogLevel, message: unknown, params: unknown[]): void {
    const rest = [...params];
    const context = typeof rest[rest.length - 1] === 'string' && rest.length > 0 ? (rest.pop() as string) : undefined;
    const level = wanted === 'log' && context && NEST_BOOTSTRAP_CONTEXTS.has(context) ? 'debug' : wanted;
    if (!this.enabled.has(level)) return;
    const fields: Record<string, unknown> = context ? { context } : {};
    const stack = rest.find((p) => typeof p === 'string' && p.includes('\n    at '));
    if (stack) fields.stack = this.scrubber.scrub(stack as string);
    let text: string;
    if (message instanceof Error) {
      text = message.message;
      fields.stack = this.scrubber.scrub(message.stack ?? '');
    } else if (typeof message === 'object' && message !== null) {
      Object.assign(fields, message);
      text = typeof (message as { msg?: unknown }).msg === 'string' ? (message as { msg: string }).msg : '';
    } else text = String(message);
    this.pino[PINO_LEVEL[level]](fields, this.scrubber.scrub(text));
  }
}

export const ALL_LEVELS = ORDER;
