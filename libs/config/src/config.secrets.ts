import { z } from 'zod';
import { NestclawError } from '@nestclaw/common';
import { configSchema, NestclawConfig } from './config.schema';

export const REDACTED = '[redacted]';

type Def = { type: string; [key: string]: unknown };
const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;
const isSecret = (schema: z.ZodType): boolean => (z.globalRegistry.get(schema) as { secret?: boolean } | undefined)?.secret === true;

/**
 * Walks a value alongside the schema that produced it and calls `onSecret` for every value whose
 * schema is marked `secret` (config.schema.ts). Wrappers (optional, default, pipes…) are seen
 * through; a union is walked with each of its options, so a secret in any of them is found.
 */
type Path = readonly (string | number)[];
type OnSecret = (value: unknown, path: Path) => unknown;

function visit(schema: z.ZodType, value: unknown, onSecret: OnSecret, path: Path = []): unknown {
  if (value === undefined || value === null) return value;
  if (isSecret(schema)) return onSecret(value, path);
  const def = defOf(schema);
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'readonly':
    case 'catch':
    case 'nonoptional':
      return visit(def.innerType as z.ZodType, value, onSecret, path);
    case 'pipe':
      // The value is the pipe's output; secrets are marked on the input side (or the output side).
      return visit(def.out as z.ZodType, visit(def.in as z.ZodType, value, onSecret, path), onSecret, path);
    case 'object': {
      if (typeof value !== 'object' || Array.isArray(value)) return value;
      // Own keys only: an edited section can name `__proto__` or `constructor` (refused later by the schema).
      const shape = def.shape as Record<string, z.ZodType>;
      return Object.fromEntries(
        Object.entries(value).map(([k, v]) => [k, Object.hasOwn(shape, k) ? visit(shape[k], v, onSecret, [...path, k]) : v]),
      );
    }
    case 'record': {
      if (typeof value !== 'object' || Array.isArray(value)) return value;
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, visit(def.valueType as z.ZodType, v, onSecret, [...path, k])]));
    }
    case 'array':
      return Array.isArray(value) ? value.map((v, i) => visit(def.element as z.ZodType, v, onSecret, [...path, i])) : value;
    case 'union':
      return (def.options as z.ZodType[]).reduce<unknown>((v, option) => visit(option, v, onSecret, path), value);
    default:
      return value;
  }
}

/** A copy of the configuration with every secret-marked value replaced by "[redacted]": for dumps and logs. */
export function redactConfig(config: NestclawConfig): NestclawConfig {
  return visit(configSchema, config, (v) => (v === '' ? v : REDACTED)) as NestclawConfig;
}

/** Every non-empty secret value in the configuration (API keys, bot tokens, database URL…). */
export function secretValues(config: NestclawConfig): string[] {
  const found: string[] = [];
  visit(configSchema, config, (v) => {
    if (typeof v === 'string' && v.length >= 4) found.push(v);
    return v;
  });
  return [...new Set(found)];
}

/** Replaces each secret value of the configuration that appears in `text` (an error message, a log line). */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  // Longest first, so a secret containing another is replaced whole.
  for (const s of [...secrets].sort((a, b) => b.length - a.length)) out = out.split(s).join(REDACTED);
  return out;
}

/**
 * A bare `${VAR}` reference names where a secret comes from, not the secret: the owner may see it. One
 * with a fallback (`${VAR:-…}`) is masked, since the fallback may be a secret itself.
 */
const isEnvReference = (v: unknown): boolean => typeof v === 'string' && /^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/.test(v);

/** One section as written in the file, for the settings page: literal secrets masked, `${VAR}` references kept. */
export function maskFileSecrets(section: string, raw: unknown): unknown {
  const masked = visit(configSchema, { [section]: raw }, (v) => (v === '' || isEnvReference(v) ? v : REDACTED)) as Record<string, unknown>;
  return masked[section];
}

const valueAt = (root: unknown, path: Path): unknown =>
  path.reduce<unknown>(
    (node, key) => (node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined),
    root,
  );

/**
 * An edited section with each secret still masked (left as the settings page showed it) put back to
 * the file's value at the same place. A mask with nothing behind it is refused: writing "[redacted]"
 * as a key would break the provider silently.
 */
export function restoreMaskedSecrets(section: string, edited: unknown, fileSection: unknown): unknown {
  const restored = visit(configSchema, { [section]: edited }, (v, path) => {
    if (v !== REDACTED) return v;
    const kept = valueAt({ [section]: fileSection }, path);
    if (typeof kept === 'string' && kept !== REDACTED) return kept;
    throw new NestclawError(
      'config_invalid',
      `${path.join('.')} is "${REDACTED}" but the file has no value there to keep: type the secret or a \${VAR} reference`,
    );
  }) as Record<string, unknown>;
  return restored[section];
}
