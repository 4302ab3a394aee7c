import { IntDatabase, openIntDatabase } from '@nestclaw/testing';
import { observeStatements } from './statement-observer';

describe('statement observer (real database)', () => {
  let int: IntDatabase;
  const seen: { text: string; name?: string; error?: string }[] = [];
  beforeAll(async () => {
    int = await openIntDatabase();
    observeStatements((text, name) => (error) => seen.push({ text, name, ...(error ? { error: error.message } : {}) }));
  });
  afterAll(async () => {
    observeStatements(undefined);
    await int?.close();
  });
  beforeEach(() => (seen.length = 0));

  it('sees raw SQL through DatabaseService.query with its statement name', async () => {
    await int.db.query('SELECT $1::int AS n', [1], { name: 'observer.select' });
    expect(seen).toEqual([{ text: 'SELECT $1::int AS n', name: int.db.statementName('observer.select') }]);
  });

  it('sees pool.query (callback style inside pg-pool), transactions and Prisma', async () => {
    await int.db.pool.query('SELECT 2');
    await int.db.transaction((client) => client.query('SELECT 3'));
    await int.db.prisma.$queryRawUnsafe('SELECT 4');
    const texts = seen.map((s) => s.text.trim());
    expect(texts).toEqual(expect.arrayContaining(['SELECT 2', 'BEGIN', 'SELECT 3', 'COMMIT', 'SELECT 4']));
  });

  it('passes the error of a failed statement', async () => {
    await expect(int.db.query('SELECT * FROM no_such_table_here')).rejects.toThrow();
    expect(seen).toEqual([{ text: 'SELECT * FROM no_such_table_here', error: expect.stringContaining('no_such_table_here') }]);
  });

  it('observes nothing once cleared', async () => {
    observeStatements(undefined);
    await int.db.query('SELECT 5');
    expect(seen).toEqual([]);
    observeStatements((text, name) => (error) => seen.push({ text, name, ...(error ? { error: error.message } : {}) }));
  });
});
