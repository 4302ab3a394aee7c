import { context, createContextKey, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { currentLogContext, withLogContext } from '../logging/log-context';
import { WorkContextManager } from './work-context.manager';

const KEY = createContextKey('test');
const tick = () => new Promise((r) => setImmediate(r));

beforeAll(() => context.setGlobalContextManager(new WorkContextManager().enable()));
afterAll(() => context.disable());

describe('WorkContextManager', () => {
  it('follows a context through awaits and timers, and restores the outer one after', async () => {
    const ctx = ROOT_CONTEXT.setValue(KEY, 'inner');
    const seen = await context.with(ctx, async () => {
      await tick();
      const later = await new Promise((r) => setTimeout(() => r(context.active().getValue(KEY)), 1));
      return [context.active().getValue(KEY), later];
    });
    expect(seen).toEqual(['inner', 'inner']);
    expect(context.active()).toBe(ROOT_CONTEXT);
  });

  it('keeps the log ids when a span context is entered, and the span context when log ids are added', async () => {
    const span = new BasicTracerProvider().getTracer('t').startSpan('turn');
    const seen = await withLogContext({ requestId: 'r-1' }, () =>
      context.with(trace.setSpan(context.active(), span), () =>
        withLogContext({ sessionId: 's-1' }, async () => {
          await tick();
          return { log: currentLogContext(), span: trace.getActiveSpan() };
        }),
      ),
    );
    expect(seen.log).toEqual({ requestId: 'r-1', sessionId: 's-1' });
    expect(seen.span).toBe(span);
    expect(currentLogContext()).toBeUndefined();
  });

  it('binds a function to a context', () => {
    const bound = context.bind(ROOT_CONTEXT.setValue(KEY, 'bound'), (x: number) => [x, context.active().getValue(KEY)]);
    expect(bound(1)).toEqual([1, 'bound']);
    const target = { a: 1 };
    expect(context.bind(ROOT_CONTEXT, target)).toBe(target);
  });
});
