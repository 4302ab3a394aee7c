import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { ATTR, SPAN } from '../telemetry.names';
import { tracer } from './tracer';
import { tracingEnabled } from './tracing.setup';

/** BEGIN/COMMIT/ROLLBACK/SAVEPOINT carry nothing a trace reader needs, yet are a third of a turn's statements. */
const TRANSACTION_CONTROL = new Set(['BEGIN', 'COMMIT', 'ROLLBACK', 'SAVEPOINT', 'RELEASE', 'START', 'END']);

/** The statement's first keyword (SELECT, INSERT, WITH…), upper-cased, without a regex over the whole text. */
export function statementVerb(text: string): string {
  let start = 0;
  while (start < text.length && text.charCodeAt(start) <= 32) start++;
  let end = start;
  while (end < text.length && end - start < 16) {
    const c = text.charCodeAt(end) | 32; // lower-case ASCII letters
    if (c < 97 || c > 122) break;
    end++;
  }
  return end > start ? text.slice(start, end).toUpperCase() : 'SQL';
}

/**
 * The statement on one line: runs of whitespace outside quoted literals and identifiers become one
 * space. nestclaw's SQL is indented template text (a turn's opening statement is 1.9 KB, 40 % of it
 * indentation), and a trace reader wants the statement, not the layout; every span carries it.
 */
export function compactSql(text: string): string {
  let out = '';
  let quote = 0; // the char code of the open quote (' or "), 0 outside literals
  let pendingSpace = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (quote === 0 && c <= 32) {
      pendingSpace = out.length > 0;
      continue;
    }
    if (pendingSpace) out += ' ';
    pendingSpace = false;
    if (c === 39 || c === 34) quote = quote === 0 ? c : quote === c ? 0 : quote;
    out += text[i];
  }
  return out;
}

/** Statement texts are constants (plus a few shapes of IN lists): compacted once, up to a bound. */
const COMPACTED_LIMIT = 1000;
const compacted = new Map<string, string>();
function compactedText(text: string): string {
  let short = compacted.get(text);
  if (short === undefined) {
    short = compactSql(text);
    if (compacted.size < COMPACTED_LIMIT) compacted.set(text, short);
  }
  return short;
}

/**
 * One `pg.query:{VERB}` client span per SQL statement, child of the active span: only inside a
 * traced (and sampled) request or turn, so pool housekeeping and unsampled turns cost one check.
 * The span is never made active (a statement has no children), so no context switch is paid.
 * `db.query.text` is the parameterised text on one line (compactSql): values are never recorded.
 */
export function traceStatement(text: string, name: string | undefined): ((error?: Error | null) => void) | undefined {
  const parent = context.active();
  if (!trace.getSpan(parent)?.isRecording()) return undefined;
  // `BEGIN; INSERT …` (a transaction opened together with its first write) is traced as its write.
  if (text.startsWith('BEGIN; ')) text = text.slice(7);
  const verb = statementVerb(text);
  if (TRANSACTION_CONTROL.has(verb)) return undefined;
  const span = tracer().startSpan(
    `${SPAN.sqlStatement}:${verb}`,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        [ATTR.dbSystem]: 'postgresql',
        [ATTR.dbOperation]: verb,
        [ATTR.dbQueryText]: compactedText(text),
        ...(name ? { [ATTR.dbQuerySummary]: name } : {}),
      },
    },
    parent,
  );
  return (error) => {
    if (error) {
      span.setAttribute(ATTR.errorType, (error as { code?: string }).code ?? error.name);
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
  };
}

/**
 * traceStatement when tracing is on and SQL is not switched off with the SDK's standard
 * `OTEL_NODE_DISABLED_INSTRUMENTATIONS=pg`; undefined otherwise (then nothing is observed at all).
 */
export function statementTracer(env: NodeJS.ProcessEnv = process.env): typeof traceStatement | undefined {
  if (!tracingEnabled(env)) return undefined;
  const disabled = (env.OTEL_NODE_DISABLED_INSTRUMENTATIONS ?? '').split(',').map((s) => s.trim());
  return disabled.includes('pg') ? undefined : traceStatement;
}
