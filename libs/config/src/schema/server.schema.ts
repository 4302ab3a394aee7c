import { z } from 'zod';
import { duration } from './field-types';

export const serverSchema = z
  .strictObject({
    host: z.string().min(1).default('127.0.0.1'),
    port: z.number().int().min(0).max(65535).default(3000),
    /** Largest accepted request body in bytes. */
    body_limit: z.number().int().positive().default(1_048_576),
    /** WebSocket keep-alive: a ping this often; a client that has not answered the last one is dropped. */
    ws_ping_interval: duration.default(30_000),
  })
  .prefault({});
