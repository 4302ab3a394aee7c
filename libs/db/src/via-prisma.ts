import { mapDatabaseError } from './database-error';

/**
 * Runs one Prisma call and maps its failure as `DatabaseService.query` maps pg's (mapDatabaseError):
 * a repository's Prisma queries fail with the same coded errors (409, 503, 400) as its raw ones.
 */
export async function viaPrisma<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    throw mapDatabaseError(e);
  }
}
