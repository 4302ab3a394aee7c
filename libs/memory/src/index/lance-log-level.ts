/**
 * LanceDB's Rust logger reads LANCEDB_LOG once, when its native module loads, and warns on stderr
 * about normal events ("No existing dataset at …, it will be created" on every first start). Errors
 * reach us as exceptions, so only its errors are printed. Imported before `@lancedb/lancedb`
 * wherever that is imported: set any later and it has no effect.
 */
process.env.LANCEDB_LOG ??= 'error';
