import { memorySchema } from './memory.schema';

describe('memory: config', () => {
  it('uses the built-in search store unless a plugin store is named', () => {
    expect(memorySchema.parse(undefined)).toMatchObject({ store: 'builtin', store_settings: {} });
    expect(memorySchema.parse({ store: 'plugin:memory-jsonl', store_settings: { url: 'http://127.0.0.1:9200' } })).toMatchObject({
      store: 'plugin:memory-jsonl',
      store_settings: { url: 'http://127.0.0.1:9200' },
    });
  });

  it('rejects a store that is neither builtin nor plugin:<id>', () => {
    for (const store of ['lancedb', 'plugin:', 'plugin:Bad_Id', 'plugin:x y']) {
      const parsed = memorySchema.safeParse({ store });
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues[0].message).toBe('builtin or plugin:<id>');
    }
  });
});
