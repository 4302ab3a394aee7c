import { context, ROOT_CONTEXT, SpanStatusCode, trace, TraceFlags } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { compactSql, statementTracer, statementVerb, traceStatement } from './sql.tracer';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
trace.setGlobalTracerProvider(provider);
const parentTracer = provider.getTracer('test');

const inSpan = <T>(fn: () => T) => {
  const parent = parentTracer.startSpan('turn');
  const r = context.with(trace.setSpan(ROOT_CONTEXT, parent), fn);
  parent.end();
  return { parent, r };
};

beforeEach(() => exporter.reset());

describe('statementVerb', () => {
  it('reads the first keyword, whatever the case and leading whitespace', () => {
    expect(statementVerb('\n   insert into t values ($1)')).toBe('INSERT');
    expect(statementVerb('WITH x AS (SELECT 1) SELECT * FROM x')).toBe('WITH');
    expect(statementVerb('Select 1')).toBe('SELECT');
    expect(statementVerb('')).toBe('SQL');
  });
});

describe('compactSql', () => {
  it('puts an indented statement on one line and leaves quoted literals and identifiers as written', () => {
    const text = `\n      WITH s AS (\n        UPDATE sessions SET title = 'a  b\n c'\n         WHERE "odd  name" = $1\n      )\n      SELECT * FROM s\n    `;
    expect(compactSql(text)).toBe(`WITH s AS ( UPDATE sessions SET title = 'a  b\n c' WHERE "odd  name" = $1 ) SELECT * FROM s`);
    expect(compactSql("SELECT 'it''s  ok',   1")).toBe("SELECT 'it''s  ok', 1");
    expect(compactSql('SELECT 1')).toBe('SELECT 1');
  });
});

describe('traceStatement', () => {
  it('records the statement on one line', () => {
    inSpan(() => traceStatement('\n  SELECT *\n    FROM sessions\n   WHERE id = $1\n', undefined)?.());
    const [span] = exporter.getFinishedSpans().filter((s) => s.name.startsWith('pg.query'));
    expect(span.attributes['db.query.text']).toBe('SELECT * FROM sessions WHERE id = $1');
  });

  it('records one client span per statement under the active span, with the parameterised text', () => {
    const { parent } = inSpan(() => traceStatement('SELECT * FROM sessions WHERE id = $1', 'session.find')?.());
    const [span] = exporter.getFinishedSpans().filter((s) => s.name.startsWith('pg.query'));
    expect(span.name).toBe('pg.query:SELECT');
    expect(span.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
    expect(span.attributes).toEqual({
      'db.system.name': 'postgresql',
      'db.operation.name': 'SELECT',
      'db.query.text': 'SELECT * FROM sessions WHERE id = $1',
      'db.query.summary': 'session.find',
    });
  });

  it('marks a failed statement with its error code', () => {
    inSpan(() => traceStatement('INSERT INTO t VALUES ($1)', undefined)?.(Object.assign(new Error('dup'), { code: '23505' })));
    const [span] = exporter.getFinishedSpans().filter((s) => s.name.startsWith('pg.query'));
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.attributes['error.type']).toBe('23505');
  });

  it('leaves out transaction control, statements outside a trace and unsampled traces', () => {
    const { r } = inSpan(() => [traceStatement('BEGIN', undefined), traceStatement('  commit', undefined)]);
    expect(r).toEqual([undefined, undefined]);
    expect(traceStatement('SELECT 1', undefined)).toBeUndefined();
    const unsampled = trace.wrapSpanContext({
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      traceFlags: TraceFlags.NONE,
    });
    expect(context.with(trace.setSpan(ROOT_CONTEXT, unsampled), () => traceStatement('SELECT 1', undefined))).toBeUndefined();
    expect(exporter.getFinishedSpans().filter((s) => s.name.startsWith('pg.query'))).toEqual([]);
  });
});

describe('statementTracer', () => {
  it('is on with tracing, off without an endpoint or with OTEL_NODE_DISABLED_INSTRUMENTATIONS=pg', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };
    expect(statementTracer(endpoint)).toBe(traceStatement);
    expect(statementTracer({})).toBeUndefined();
    expect(statementTracer({ ...endpoint, OTEL_NODE_DISABLED_INSTRUMENTATIONS: 'http, pg' })).toBeUndefined();
  });
});
