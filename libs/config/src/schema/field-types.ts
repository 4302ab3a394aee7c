import { z } from 'zod';
import { parseDuration } from '@nestclaw/common';

/**
 * Marks a value as a secret, once, here in the schema: `redactConfig` and `secretValues`
 * (config.secrets.ts) find every marked value, so logs, /doctor and config dumps never show it.
 */
export const secret = <T extends z.ZodType>(schema: T): T => schema.meta({ secret: true }) as T;

/** A duration as "30s", "5m", "1h" or milliseconds; parsed to milliseconds. */
export const duration = z.union([z.string(), z.number()]).transform((v, ctx) => {
  try {
    return parseDuration(v);
  } catch (e) {
    ctx.addIssue({ code: 'custom', message: (e as Error).message });
    return z.NEVER;
  }
});
