import { defineConfig } from 'prisma/config';

// The Prisma CLI is only used for `prisma generate`; migrations are plain SQL applied by
// our own runner (libs/db/src/migrations/migration.runner.ts), so no datasource URL is needed here.
export default defineConfig({
  schema: 'prisma/schema',
  migrations: { path: 'prisma/migrations' },
});
