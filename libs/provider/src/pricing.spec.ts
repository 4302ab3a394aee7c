import { costOf, priceFor } from './pricing';

describe('pricing', () => {
  it('prices fresh input, cached input, cache writes and output separately (USD per 1M tokens)', () => {
    const price = { input: 3, output: 15, cached_input: 0.3, cache_write: 3.75 };
    const usage = { inputTokens: 10_000, cachedInputTokens: 6000, cacheWriteInputTokens: 1000, outputTokens: 2000 };
    expect(costOf(usage, price)).toBeCloseTo((3000 * 3 + 6000 * 0.3 + 1000 * 3.75 + 2000 * 15) / 1e6, 10);
  });

  it('charges cached input at the input price when no cached price is known', () => {
    expect(costOf({ inputTokens: 1000, cachedInputTokens: 400, outputTokens: 0 }, { input: 1, output: 2 })).toBe(0.001);
  });

  it('rounds to the ledger precision (1e-8 USD) and costs nothing without a price', () => {
    expect(costOf({ inputTokens: 1, cachedInputTokens: 0, outputTokens: 0 }, { input: 0.15, output: 0.6 })).toBe(1.5e-7);
    expect(costOf({ inputTokens: 1000, cachedInputTokens: 0, outputTokens: 1000 }, undefined)).toBe(0);
  });

  it('takes the config price over the built-in one, and knows vendor-prefixed ids', () => {
    expect(priceFor('gpt-4o-mini')).toMatchObject({ input: 0.15 });
    expect(priceFor('gpt-4o-mini', { input: 9, output: 9 })).toEqual({ input: 9, output: 9 });
    expect(priceFor('openai/gpt-4o-mini')).toMatchObject({ input: 0.15 });
    expect(priceFor('some-local-model')).toBeUndefined();
  });
});
