import { z } from 'zod';
import { duration, secret } from './field-types';

export const databaseSchema = z
  .strictObject({
    /** May carry a password: secret as a whole. */
    url: secret(z.string().min(1)).optional(),
    pool_size: z.number().int().min(1).max(100).default(10),
    /**
     * PostgreSQL `synchronous_commit` for nestclaw's connections. "on" waits for the WAL to reach
     * disk before a commit returns, so every reply a client saw survives any crash. "off" returns
     * before that: safe while the database server outlives the gateway, but a crash of the server
     * or the machine may lose the last fraction of a second. "auto" (default) is "on" for the
     * embedded database (it dies with the gateway) and "off" for a DATABASE_URL server (docs/adr/0001).
     */
    synchronous_commit: z.enum(['auto', 'on', 'off']).default('auto'),
    /**
     * Longest wait for any one database operation (getting a connection, or one query): past it
     * the request fails with 503 database_unavailable instead of hanging through a network
     * partition. Also PostgreSQL's statement_timeout on a real server.
     */
    query_timeout: duration.default(5_000),
    /**
     * Without `url`: which embedded PostgreSQL runs the data. auto = the real PostgreSQL binaries
     * shipped on npm where they can run, else PGlite (WebAssembly, heavier); see docs/adr/0006.
     */
    embedded_engine: z.enum(['auto', 'native', 'pglite']).default('auto'),
  })
  .prefault({});
