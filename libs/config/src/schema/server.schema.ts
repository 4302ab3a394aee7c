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
    /** Browser sign-in (docs/security.md, "Web sessions"). */
    ui: z
      .strictObject({
        /** A web session ends after this long without a request (sliding). */
        session_ttl: duration.default(7 * 24 * 3_600_000),
        /** Always mark the session cookie `Secure` (behind a TLS-terminating proxy); it is anyway on https. */
        secure_cookie: z.boolean().default(false),
        /**
         * Origins besides the gateway's own (scheme + Host) allowed to send cookie-authenticated writes and
         * WebSocket upgrades, e.g. `https://nestclaw.example.com` behind a proxy. Exact match, no wildcards.
         */
        allowed_origins: z.array(z.url().transform((u) => new URL(u).origin)).default([]),
      })
      .prefault({}),
  })
  .prefault({});
