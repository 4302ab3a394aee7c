/** Which embedded PostgreSQL serves the data: real binaries in a child process, or PGlite (WASM) in this one. */
export type EmbeddedEngine = 'native' | 'pglite';

/** A server this process started. */
export interface RunningServer {
  engine: EmbeddedEngine;
  port: number;
  password: string;
  stop(): Promise<void>;
}
