import { FakeOpenAiServer } from '../../fixtures/fake-openai.server';
import { Harness, startHarness } from '../../support/gateway-harness';
import { readSse } from '../../support/sse';
import { callsOf, chat, openAiModel, startFakes } from './chain-fixtures';

/** Real time on purpose: the budget is a promise about wall-clock seconds. */
describe('one timeout budget (5 s) shared by every attempt on every model', () => {
  let h: Harness;
  let primary: FakeOpenAiServer;
  let backup: FakeOpenAiServer;

  beforeAll(async () => {
    [primary, backup] = await startFakes(2);
    h = await startHarness({
      config: {
        models: { primary: openAiModel(primary, 'primary-model'), backup: openAiModel(backup, 'backup-model') },
        providers: { primary: 'primary', fallback: ['backup'], timeout_budget: '5s', circuit_breaker: { threshold: 10 } },
      },
    });
  });
  afterAll(async () => {
    await h.stop();
    await Promise.all([primary.stop(), backup.stop()]);
  });

  it('answers from the fallback when the primary hangs, and the whole request takes < 6 s', async () => {
    primary.enqueue({ kind: 'hang' });
    const started = performance.now();
    const { status, body } = await chat(h, 'are you there');
    const elapsed = performance.now() - started;
    expect(status).toBe(200);
    expect(body.reply).toBe('echo: are you there');
    expect(elapsed).toBeLessThan(6000);
    const calls = await callsOf(h, body.sessionId);
    expect(calls.map((c) => [c.model, c.status, c.error_code])).toEqual([
      ['primary-model', 'error', 'timeout'],
      ['backup-model', 'ok', null],
    ]);
  });

  it('gives the client timeout_budget_exhausted at about 5 s, never later, when every model hangs', async () => {
    primary.enqueue({ kind: 'hang' });
    backup.enqueue({ kind: 'hang' });
    const started = performance.now();
    const { status, body } = await chat(h, 'anyone');
    const elapsed = performance.now() - started;
    expect(status).toBe(504);
    expect(body.error?.code).toBe('timeout_budget_exhausted');
    expect(elapsed).toBeGreaterThan(4900);
    expect(elapsed).toBeLessThan(5600);
  });

  it('ends a stream whose models all hang with timeout_budget_exhausted at about 5 s', async () => {
    primary.enqueue({ kind: 'hang' });
    backup.enqueue({ kind: 'hang' });
    const started = performance.now();
    const res = await h.api('/v1/chat', { json: { message: 'anyone streaming', stream: true } });
    const events = await readSse(res);
    const elapsed = performance.now() - started;
    expect(events[events.length - 1].event).toBe('error');
    expect(JSON.parse(events[events.length - 1].data)).toMatchObject({ code: 'timeout_budget_exhausted' });
    expect(elapsed).toBeGreaterThan(4900);
    expect(elapsed).toBeLessThan(5600);
  });
});
