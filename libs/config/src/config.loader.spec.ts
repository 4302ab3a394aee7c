import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, interpolate } from './config.loader';

const write = (text: string) => {
  const dir = mkdtempSync(join(tmpdir(), 'nestclaw-config-'));
  const path = join(dir, 'config.yaml');
  writeFileSync(path, text);
  return path;
};

describe('loadConfig', () => {
  it('uses defaults when the file is missing', () => {
    const { config, fromFile } = loadConfig('/nonexistent/config.yaml', {});
    expect(fromFile).toBe(false);
    expect(config.server).toMatchObject({ host: '127.0.0.1', port: 3000 });
    expect(config.agents.default.max_iterations).toBe(8);
    expect(config.models).toEqual({});
  });

  it('interpolates ${VAR} and ${VAR:-fallback} inside values', () => {
    expect(interpolate({ a: 'key-${K}', b: ['${MISSING:-dflt}'], c: 3 }, { K: 'v' })).toEqual({ a: 'key-v', b: ['dflt'], c: 3 });
    const path = write('models:\n  m: { provider: openai, model: gpt-4o-mini, api_key: "${MY_KEY}" }\n');
    expect(loadConfig(path, { MY_KEY: 'sk-123' }).config.models.m.api_key).toBe('sk-123');
  });

  it('applies NESTCLAW_<SECTION>__<KEY> overrides as typed values', () => {
    const path = write('server:\n  port: 4000\n');
    const { config } = loadConfig(path, { NESTCLAW_SERVER__PORT: '5001', NESTCLAW_AGENTS__DEFAULT__MAX_ITERATIONS: '3' });
    expect(config.server.port).toBe(5001);
    expect(config.agents.default.max_iterations).toBe(3);
  });

  it('applies the conventional variables over the file', () => {
    const path = write('server:\n  port: 4000\n  host: 0.0.0.0\n');
    const { config } = loadConfig(path, {
      PORT: '4100',
      HOST: '127.0.0.2',
      DATABASE_URL: 'postgres://x@h/db',
      OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
      OPENAI_API_KEY: 'sk-env',
      NESTCLAW_MODEL: 'qwen-plus',
    });
    expect(config.server).toMatchObject({ port: 4100, host: '127.0.0.2' });
    expect(config.database.url).toBe('postgres://x@h/db');
    expect(config.models.default).toMatchObject({ base_url: 'http://127.0.0.1:9/v1', api_key: 'sk-env', model: 'qwen-plus' });
    expect(config.providers.primary).toBe('default');
  });

  it('treats OPENAI_API_KEY alone as an OpenAI account', () => {
    const { config } = loadConfig('/nonexistent/config.yaml', { OPENAI_API_KEY: 'sk-x' });
    expect(config.models.default).toMatchObject({ provider: 'openai', api_key: 'sk-x', model: 'gpt-4o-mini' });
    expect(config.models.default.base_url).toBeUndefined();
  });

  it('lists every bad key with what was expected in one error', () => {
    const path = write(
      'server:\n  port: "eighty"\n  host: 7\nagents:\n  default: { max_iterations: 0 }\nmodels:\n  m: { base_url: "not a url" }\n',
    );
    let message = '';
    try {
      loadConfig(path, {});
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain(path);
    expect(message).toContain('server.port');
    expect(message).toContain('server.host');
    expect(message).toContain('agents.default.max_iterations');
    expect(message).toContain('models.m.model');
    expect(message).toContain('models.m.base_url');
  });

  it('names unknown keys instead of silently ignoring them', () => {
    const path = write('providers:\n  timout_budget: 5s\nserverr:\n  port: 1\n');
    expect(() => loadConfig(path, {})).toThrow(/providers\.timout_budget: unknown key[\s\S]*serverr: unknown key/);
  });

  it('rejects a binding to an agent that does not exist', () => {
    const path = write('agents:\n  coder: {}\nbindings:\n  - { agent: writer, match: { channel: telegram } }\n');
    expect(() => loadConfig(path, {})).toThrow(/bindings\.0\.agent: unknown agent "writer" \(configured: coder\)/);
  });

  it('names a misspelt provider and the one it probably meant, instead of loading a model that cannot run', () => {
    const path = write('models:\n  main: { provider: opneai, model: gpt-4o-mini }\n');
    expect(() => loadConfig(path, {})).toThrow(
      'models.main.provider: unknown provider "opneai" — did you mean "openai"? Known: openai, deepseek, moonshot, zhipu, qwen, groq, openrouter, vllm, lmstudio, openai-compatible, anthropic, gemini, ollama',
    );
  });

  it('lists the known providers without a guess when no provider is close to the one given', () => {
    const path = write('models:\n  main: { provider: watsonx, model: granite }\n');
    expect(() => loadConfig(path, {})).toThrow(
      /models\.main\.provider: unknown provider "watsonx"\. Known: openai, deepseek, .*, ollama$/m,
    );
  });

  it('suggests across case and a missing letter (OpenAi, antropic, ollma)', () => {
    for (const [typed, meant] of [
      ['OpenAi', 'openai'],
      ['antropic', 'anthropic'],
      ['ollma', 'ollama'],
      ['openai-compatable', 'openai-compatible'],
    ]) {
      const path = write(`models:\n  m: { provider: ${typed}, model: x }\n`);
      expect(() => loadConfig(path, {})).toThrow(`unknown provider "${typed}" — did you mean "${meant}"?`);
    }
  });

  it('keeps a default agent when the file defines only others', () => {
    const path = write('agents:\n  coder: { max_iterations: 3 }\n');
    const { config } = loadConfig(path, {});
    expect(Object.keys(config.agents).sort()).toEqual(['coder', 'default']);
    expect(config.agents.default.max_iterations).toBe(8);
  });

  it('rejects a file that is not YAML with a clear message', () => {
    const path = write('server: [unclosed\n');
    expect(() => loadConfig(path, {})).toThrow(/not valid YAML/);
  });
});

describe('strict configuration', () => {
  it('names a misspelt key inside a model instead of loading the model without its key', () => {
    const path = write('models:\n  m: { provider: openai, model: gpt-4o-mini, api_kye: sk-123 }\n');
    expect(() => loadConfig(path, {})).toThrow(/models\.m\.api_kye: unknown key/);
  });

  it('names misspelt keys in nested sections, channels and search backends', () => {
    const path = write(
      'tools:\n  exec: { securty: deny }\n  search: { backend: { kind: brave, api_key: k, urll: x } }\nchannels:\n  telegram: { tokn: t }\n',
    );
    let message = '';
    try {
      loadConfig(path, {});
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain('tools.exec.securty: unknown key');
    expect(message).toContain('tools.search.backend.urll: unknown key');
    expect(message).toContain('channels.telegram.tokn: unknown key');
  });

  it("takes a plugin channel's access keys under channels.plugins, never a built-in channel's id or other keys", () => {
    const ok = loadConfig(write('channels:\n  plugins:\n    relay: { allow_from: [alice, 42] }\n'), {}).config;
    expect(ok.channels.plugins.relay).toEqual({ allow_from: ['alice', '42'], group_policy: 'allowlist', require_mention: true });
    expect(() => loadConfig(write('channels:\n  plugins:\n    telegram: { allow_from: [1] }\n'), {})).toThrow(/is a built-in channel/);
    expect(() => loadConfig(write('channels:\n  plugins:\n    relay: { token: x }\n'), {})).toThrow(
      /channels\.plugins\.relay\.token: unknown key/,
    );
  });
});
