import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { Writable } from 'node:stream';
import { Logger } from '@nestjs/common';
import { addToLogContext, withLogContext } from './log-context';
import { PinoNestLogger } from './pino.logger';

function capture(levels: Parameters<PinoNestLogger['setLogLevels']>[0] = ['log', 'warn', 'error']) {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Record<string, unknown>);
      done();
    },
  });
  const logger = new PinoNestLogger({ levels, format: 'json', destination });
  return { logger, lines };
}

describe('PinoNestLogger', () => {
  it('writes one JSON object per line with the message, level and Nest context', () => {
    const { logger, lines } = capture();
    logger.log('hello', 'Agent');
    expect(lines[0]).toMatchObject({ level: 30, msg: 'hello', context: 'Agent' });
    expect(typeof lines[0].time).toBe('string');
  });

  it("writes Nest's start-up chatter (route mappings, modules initialised) at debug, not at the default level", () => {
    const { logger, lines } = capture();
    logger.log('Mapped {/v1/chat, POST} route', 'RouterExplorer');
    logger.log('GatewayModule dependencies initialized', 'InstanceLoader');
    logger.log('listening on http://127.0.0.1:3000', 'Gateway');
    expect(lines.map((l) => l.msg)).toEqual(['listening on http://127.0.0.1:3000']);
    const verbose = capture(['debug', 'log']);
    verbose.logger.log('Mapped {/v1/chat, POST} route', 'RouterExplorer');
    expect(verbose.lines[0]).toMatchObject({ level: 20, msg: 'Mapped {/v1/chat, POST} route' });
  });

  it('adds the request, session and turn ids of the work in progress', () => {
    const { logger, lines } = capture();
    withLogContext({ requestId: 'req-1', sessionId: 's-1' }, () => {
      addToLogContext({ turnId: 't-1' });
      logger.warn('inside');
    });
    logger.warn('outside');
    expect(lines[0]).toMatchObject({ requestId: 'req-1', sessionId: 's-1', turnId: 't-1' });
    expect(lines[1].sessionId).toBeUndefined();
  });

  it('adds the trace id of the active span', () => {
    const manager = new AsyncLocalStorageContextManager().enable();
    context.setGlobalContextManager(manager);
    const provider = new BasicTracerProvider();
    const span = provider.getTracer('t').startSpan('turn');
    const { logger, lines } = capture();
    context.with(trace.setSpan(context.active(), span), () => logger.log('traced'));
    expect(lines[0].traceId).toBe(span.spanContext().traceId);
    span.end();
    context.disable();
  });

  it('replaces configured secrets and credential-shaped text with [redacted]', () => {
    const { logger, lines } = capture();
    logger.scrubber.setSecrets(['my-provider-key-123']);
    logger.error(
      'failed with my-provider-key-123 and Authorization: Bearer abcdefghijkl12345 at postgres://u:hunter22@db/x',
      undefined,
      'X',
    );
    const msg = lines[0].msg as string;
    expect(msg).not.toContain('my-provider-key-123');
    expect(msg).not.toContain('abcdefghijkl12345');
    expect(msg).not.toContain('hunter22');
    expect(msg).toContain('[redacted]');
  });

  it('redacts secret fields of structured log objects', () => {
    const { logger, lines } = capture();
    logger.log({ msg: 'request', headers: { authorization: 'Bearer zzz' }, api_key: 'k' });
    expect(lines[0]).toMatchObject({ headers: { authorization: '[redacted]' }, api_key: '[redacted]' });
  });

  it('applies a log level change from Nest at once (the config hot reload path)', () => {
    const { logger, lines } = capture(['log', 'warn', 'error']);
    Logger.overrideLogger(logger);
    new Logger('Config').debug('hidden');
    Logger.overrideLogger(['debug', 'log', 'warn', 'error']);
    new Logger('Config').debug('shown');
    expect(lines.map((l) => l.msg)).toEqual(['shown']);
  });
});
