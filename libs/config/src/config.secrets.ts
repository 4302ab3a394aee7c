import { z } from 'zod';
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
function visit(schema: z.ZodType, value: unknown, onSecret: (value: unknown) => unknown): unknown {
  if (value === undefined || value === null) return value;
  if (isSecret(schema)) return onSecret(value);
  const def = defOf(schema);
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'readonly':
    case 'catch':
    case 'nonoptional':
      return visit(def.innerType as z.ZodType, value, onSecret);
    case 'pipe':
      // The value is the pipe's output; secrets are marked on the input side (or the output side).
      return visit(def.out as z.ZodType, visit(def.in as z.ZodType, value, onSecret), onSecret);
    case 'object': {
      if (typeof value !== 'object' || Array.isArray(value)) return value;
      const shape = def.shape as Record<string, z.ZodType>;
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shape[k] ? visit(shape[k], v, onSecret) : v]));
    }
    case 'record': {
      if (typeof value !== 'object' || Array.isArray(value)) return value;
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, visit(def.valueType as z.ZodType, v, onSecret)]));
    }
    case 'array':
      return Array.isArray(value) ? value.map((v) => visit(def.element as z.ZodType, v, onSecret)) : value;
    case 'union':
      return (def.options as z.ZodType[]).reduce<unknown>((v, option) => visit(option, v, onSecret), value);
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
