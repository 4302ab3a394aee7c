import './lib-aliases';
import { DatabaseService } from '@nestclaw/db';
import { testConfigService } from '@nestclaw/testing';
import { TurnLedger, TurnRepository } from '@nestclaw/agent';
import { nodeFetch, OpenCall } from '@nestclaw/provider';

/**
 * Child of turn-ledger.int-spec: sends one model request through nodeFetch with a TurnLedger gate and
 * kills itself with SIGKILL at the first moment JavaScript gets control back after the gated step:
 * `after-send` right after COMMIT and the request were written, `before-commit` right after the row's
 * INSERT was acknowledged. argv: database url, session id, turn id, request url, moment.
 */
async function main(): Promise<void> {
  const [dbUrl, sessionId, turnId, url, moment] = process.argv.slice(2);
  const db = await DatabaseService.connect(testConfigService({ database: { url: dbUrl, pool_size: 2 } }), { migrate: false });
  const ledger = new TurnLedger(new TurnRepository(db), sessionId, turnId);
  const attempt = { modelName: 'fake', provider: 'openai-compatible', model: 'fake-model', attempt: 1, isFallback: false };
  const kill = () => process.kill(process.pid, 'SIGKILL');
  const gate = async (): Promise<OpenCall> => {
    const call = await ledger.open(attempt);
    if (moment === 'before-commit') kill();
    return {
      id: call.id,
      discard: call.discard,
      commit: () => {
        // Runs after the synchronous step that wrote COMMIT and the request, before any I/O is processed.
        if (moment === 'after-send') process.nextTick(kill);
        return call.commit();
      },
    };
  };
  // A warm connection first, as a gateway has; the gated request then reuses it.
  await (await nodeFetch(url, { method: 'POST', body: '{"warm":true}' })).text();
  const body = JSON.stringify({ model: 'fake-model', messages: [{ role: 'user', content: 'x'.repeat(64 * 1024) }] });
  await nodeFetch(url, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json' },
    gate,
    idHeader: 'X-Client-Request-Id',
  } as RequestInit);
  throw new Error('still alive after the gated send');
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(2);
});
