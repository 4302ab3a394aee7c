import { existsSync, readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { NestclawError } from '@nestclaw/common';
import { configSchema, NestclawConfig } from './config.schema';

type Json = Record<string, unknown>;

/** Replaces `${VAR}` and `${VAR:-fallback}` in every string value; an unset VAR becomes "". */
export function interpolate(value: unknown, env: NodeJS.ProcessEnv): unknown {
  if (typeof value === 'string') {
    return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_, name: string, fallback?: string) => {
      const v = env[name];
      return v !== undefined && v !== '' ? v : (fallback ?? '');
    });
  }
  if (Array.isArray(value)) return value.map((v) => interpolate(v, env));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolate(v, env)]));
  }
  return value;
}

function setPath(target: Json, path: string[], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) {
    if (!node[key] || typeof node[key] !== 'object') node[key] = {};
    node = node[key] as Json;
  }
  node[path[path.length - 1]] = value;
}

/** Env values are YAML scalars, so NESTCLAW_SERVER__PORT=4000 is a number and "true" a boolean. */
function envValue(raw: string): unknown {
  try {
    return parseYaml(raw) as unknown;
  } catch {
    return raw;
  }
}

/**
 * Applies `NESTCLAW_<SECTION>__<KEY>[__<KEY>…]` and the conventional variables on top of the file.
 * Precedence: file < NESTCLAW_* overrides < conventional variables (PORT, HOST, DATABASE_URL, …).
 */
export function applyEnv(raw: Json, env: NodeJS.ProcessEnv): Json {
  const out = structuredClone(raw);
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || !name.startsWith('NESTCLAW_') || !name.includes('__')) continue;
    const path = name.slice('NESTCLAW_'.length).toLowerCase().split('__').filter(Boolean);
    if (path.length >= 2) setPath(out, path, envValue(value));
  }
  if (env.PORT) setPath(out, ['server', 'port'], envValue(env.PORT));
  if (env.HOST) setPath(out, ['server', 'host'], env.HOST);
  if (env.DATABASE_URL) setPath(out, ['database', 'url'], env.DATABASE_URL);
  if (env.OPENAI_BASE_URL || env.OPENAI_API_KEY) {
    const models = (out.models ?? {}) as Json;
    const existing = (models.default ?? {}) as Json;
    models.default = {
      // Without a base URL the key is an OpenAI key: use the OpenAI preset's endpoint.
      provider: env.OPENAI_BASE_URL || existing.base_url ? 'openai-compatible' : 'openai',
      ...existing,
      ...(env.OPENAI_BASE_URL ? { base_url: env.OPENAI_BASE_URL } : {}),
      ...(env.OPENAI_API_KEY ? { api_key: env.OPENAI_API_KEY } : {}),
      model: env.NESTCLAW_MODEL || existing.model || 'gpt-4o-mini',
    };
    out.models = models;
  }
  return out;
}

export interface LoadedConfig {
  config: NestclawConfig;
  /** Whether the file existed; a missing file means defaults + env. */
  fromFile: boolean;
}

/** Reads, interpolates, overrides and validates. Throws one error listing every bad key. */
export function loadConfig(path: string, env: NodeJS.ProcessEnv = process.env): LoadedConfig {
  const fromFile = existsSync(path);
  return {
    config: validateConfig(fromFile ? parseConfigFile(readFileSync(path, 'utf8'), path) : {}, fromFile ? path : undefined, env),
    fromFile,
  };
}

/** The file's text as the raw mapping of sections (before `${VAR}` and env overrides). */
export function parseConfigFile(text: string, path: string): Json {
  let parsed: unknown;
  try {
    parsed = parseYaml(text);
  } catch (e) {
    throw new NestclawError('config_invalid', `Invalid configuration in ${path}: not valid YAML: ${(e as Error).message}`);
  }
  if (parsed !== null && parsed !== undefined && (typeof parsed !== 'object' || Array.isArray(parsed))) {
    throw new NestclawError('config_invalid', `Invalid configuration in ${path}: the top level must be a mapping of sections`);
  }
  return (parsed ?? {}) as Json;
}

/** Interpolates, applies the environment and validates a raw mapping (from the file at `path`, or none). */
export function validateConfig(raw: Json, path: string | undefined, env: NodeJS.ProcessEnv): NestclawConfig {
  const merged = applyEnv(interpolate(raw, env) as Json, env);
  const result = configSchema.safeParse(merged);
  if (!result.success) {
    // Strict schemas everywhere: a typo (`api_kye`, `timout_budget`) is an error naming the key.
    const issues = result.error.issues.flatMap((issue) =>
      issue.code === 'unrecognized_keys'
        ? issue.keys.map((k) => ({ path: [...issue.path, k].join('.'), message: 'unknown key (a typo? see docs/configuration.md)' }))
        : issue.code === 'invalid_key'
          ? // A record key that fails its own rule (a plugin channel id): say which rule.
            issue.issues.map((inner) => ({ path: issue.path.join('.'), message: inner.message }))
          : [{ path: issue.path.join('.'), message: issue.message }],
    );
    throw new NestclawError(
      'config_invalid',
      `Invalid configuration (${path ?? 'defaults + environment'}), fix these keys:\n${issues
        .map((i) => `  - ${i.path || '(top level)'}: ${i.message}`)
        .join('\n')}`,
      { issues },
    );
  }
  const config = result.data;
  if (!config.providers.primary) {
    const first = Object.keys(config.models)[0];
    if (first) config.providers.primary = first;
  }
  return config;
}
