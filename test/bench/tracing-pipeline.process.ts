/**
 * Child of observability.bench.ts: the CPU cost of one turn's trace on its own, in-process, apart
 * from everything else a turn does. Builds the span tree a chat turn makes through nestclaw's own
 * tracing code (http.request → invoke_agent → 4 pg.query spans and one chat span, 7 spans), with
 * the real SDK set-up (startTracing: BatchSpanProcessor, OTLP/HTTP JSON) exporting to a receiver
 * in this process when OTEL_EXPORTER_OTLP_ENDPOINT is set, and nothing when it is not. Prints one
 * JSON line: { usPerTurn, bytesPerTurn } (CPU with the export; OTLP bytes received, to see nothing was dropped).
 */
import { context, trace } from '@opentelemetry/api';
import { createServer } from 'node:http';
import { startTracing, traceStatement, tracer, withLogContext } from '@nestclaw/observability';

const TURNS = Number(process.env.TURNS ?? 20_000);
/** The two statements of a turn that carry long text (open and close of the turn), ~1.2 KB each. */
const LONG_SQL = `WITH s AS (UPDATE sessions SET last_seq = last_seq + 1 WHERE id = $1 RETURNING last_seq) ${'SELECT 1 '.repeat(120)}`;

async function turn(): Promise<void> {
  const root = tracer().startSpan('http.request POST /v1/chat', {
    kind: 1,
    attributes: { 'http.request.method': 'POST', 'http.route': '/v1/chat' },
  });
  await context.with(trace.setSpan(context.active(), root), () =>
    withLogContext({ requestId: '1' }, async () => {
      const span = tracer().startSpan('invoke_agent default', {
        attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'default', 'gen_ai.conversation.id': 's-1' },
      });
      await context.with(trace.setSpan(context.active(), span), async () => {
        for (const text of [LONG_SQL, 'SELECT id FROM compactions WHERE session_id = $1', 'INSERT INTO llm_calls VALUES ($1)', LONG_SQL]) {
          const end = traceStatement(text, 'bench');
          await new Promise((r) => setImmediate(r));
          end?.();
        }
        const attempt = tracer().startSpan('chat fake-model', {
          attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'fake-model', 'gen_ai.usage.input_tokens': 10 },
        });
        attempt.end();
      });
      span.setAttribute('nestclaw.turn.outcome', 'ok').end();
    }),
  );
  root.setAttribute('http.response.status_code', 200);
  root.end();
}

async function main(): Promise<void> {
  let received = 0;
  const receiver = createServer((req, res) => {
    req.on('data', (c: Buffer) => (received += c.length));
    req.on('end', () => res.end('{}'));
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  if (process.env.TRACING === 'on')
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${(receiver.address() as { port: number }).port}`;
  const handle = startTracing(process.env, 'bench');
  for (let i = 0; i < 2000; i++) await turn();
  received = 0;
  const before = process.cpuUsage();
  for (let i = 0; i < TURNS; i += 10) await Promise.all(Array.from({ length: 10 }, turn));
  await handle?.shutdown(); // the last batch's export counts too
  const used = process.cpuUsage(before);
  receiver.close();
  process.stdout.write(`${JSON.stringify({ usPerTurn: (used.user + used.system) / TURNS, bytesPerTurn: received / TURNS })}\n`);
}

void main();
