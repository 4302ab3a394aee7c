import { configSchema } from './config.schema';
import { maskFileSecrets, REDACTED, redactConfig, redactSecrets, restoreMaskedSecrets, secretValues } from './config.secrets';

const config = configSchema.parse({
  database: { url: 'postgres://app:pw-db-123@db/nestclaw' },
  models: {
    main: { provider: 'openai', model: 'gpt-4o-mini', api_key: 'sk-main-123456', headers: { 'X-Api-Key': 'hdr-secret-999' } },
    local: { provider: 'ollama', model: 'qwen3' },
  },
  tools: { search: { backend: { kind: 'brave', api_key: 'brave-key-777' } } },
  channels: { telegram: { enabled: true, token: '123:tg-token-abc' } },
});

describe('secrets marked in the schema', () => {
  it('redacts every marked value in a config dump and nothing else', () => {
    const dump = redactConfig(config);
    expect(dump.models.main.api_key).toBe(REDACTED);
    expect(dump.models.main.headers).toEqual({ 'X-Api-Key': REDACTED });
    expect(dump.models.main.model).toBe('gpt-4o-mini');
    expect(dump.models.local.api_key).toBeUndefined();
    expect(dump.database.url).toBe(REDACTED);
    expect(dump.channels.telegram.token).toBe(REDACTED);
    expect(dump.tools.search.backend).toMatchObject({ kind: 'brave', api_key: REDACTED });
    const text = JSON.stringify(dump);
    for (const s of ['sk-main-123456', 'hdr-secret-999', 'pw-db-123', 'tg-token-abc', 'brave-key-777']) expect(text).not.toContain(s);
    // The running configuration is untouched.
    expect(config.models.main.api_key).toBe('sk-main-123456');
  });

  it('lists the secret values so any text (a log line, a probe error) can be scrubbed of them', () => {
    const secrets = secretValues(config);
    expect(secrets.sort()).toEqual(
      ['sk-main-123456', 'hdr-secret-999', 'postgres://app:pw-db-123@db/nestclaw', 'brave-key-777', '123:tg-token-abc'].sort(),
    );
    expect(redactSecrets('401 from upstream: key sk-main-123456 rejected', secrets)).toBe(`401 from upstream: key ${REDACTED} rejected`);
  });
});

describe('masking and restoring secrets in an edited section', () => {
  it('sees through prototype names in an edited section instead of taking them for schema keys', () => {
    const edited = JSON.parse('{"__proto__":{"polluted":1},"constructor":{"x":1},"default":{"api_key":"[redacted]"}}') as unknown;
    expect(() => restoreMaskedSecrets('models', edited, { default: { api_key: 'sk-kept' } })).not.toThrow();
    expect(restoreMaskedSecrets('models', edited, { default: { api_key: 'sk-kept' } })).toMatchObject({ default: { api_key: 'sk-kept' } });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('masks literal secrets of a file section and a fallback of a ${VAR} reference, and keeps bare references', () => {
    expect(maskFileSecrets('models', { a: { api_key: 'sk-literal' }, b: { api_key: '${KEY}' }, c: { api_key: '${KEY:-x}' } })).toEqual({
      a: { api_key: '[redacted]' },
      b: { api_key: '${KEY}' },
      c: { api_key: '[redacted]' },
    });
  });
});
