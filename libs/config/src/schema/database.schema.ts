import { z } from 'zod';
import { duration, secret } from './field-types';

export const databaseSchema = z
  .strictObject({
    /** May carry a password: secret as a whole. */
    url: secret(z.string().min(1)).optional(),
    pool_size: z.number().int().min(1).max(100).default(10),
    /**
     * PostgreSQL `synchronous_commit` for nestclaw's connections. "off" (default) makes a commit
     * return before the WAL reaches disk: a gateway crash loses nothing, a crash of the database
     * server or the machine may lose the last fraction of a second of chat. "on" waits for the
     * disk on every write (about 3 ms per commit on the reference machine).
     */
    synchronous_commit: z.enum(['on', 'off']).default('off'),
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
