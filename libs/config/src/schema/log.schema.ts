import { z } from 'zod';

export const logSchema = z.strictObject({ level: z.enum(['error', 'warn', 'log', 'debug', 'verbose']).default('log') }).prefault({});
