export * from './database.service';
export * from './database-error';
export * from './db.module';
export { runMigrations, listMigrations } from './migrations/migration.runner';
export type { MigrationReport } from './migrations/migration.runner';
export { startEmbeddedPostgres } from './embedded/embedded-database';
export type { EmbeddedPostgres, EmbeddedEngine } from './embedded/embedded-database';
export { Prisma } from './generated/prisma/client';
export type { PrismaClient } from './generated/prisma/client';
