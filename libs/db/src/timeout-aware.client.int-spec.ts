import { IntDatabase, openIntDatabase } from '@nestclaw/testing';

describe('TimeoutAwareClient (real database)', () => {
  let int: IntDatabase;
  beforeAll(async () => {
    int = await openIntDatabase();
  });
  afterAll(() => int?.close());

  it('survives an error event while checked out of the pool (pg listens only while idle), and the pool replaces it', async () => {
    const client = await int.db.pool.connect();
    // What pg emits when a late answer arrives after a query timed out, as during a healing partition.
    expect(() => client.emit('error', new Error('Received unexpected commandComplete message from backend.'))).not.toThrow();
    client.release(true);
    const { rows } = await int.db.query<{ n: number }>('SELECT 1 AS n');
    expect(rows[0].n).toBe(1);
  });
});
