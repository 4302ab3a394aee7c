import { NestclawError } from '@nestclaw/common';
import { mapDatabaseError } from './database-error';

/** pg's errors carry the SQLSTATE in `code`; Prisma's adapter wraps them as `cause`. */
function pgError(code: string, message: string): Error & { code: string } {
  return Object.assign(new Error(message), { code });
}

describe('mapDatabaseError', () => {
  it('answers a full server (too_many_connections) with a 503 that says which knob to turn', () => {
    const mapped = mapDatabaseError(pgError('53300', 'sorry, too many clients already'));
    expect(mapped).toBeInstanceOf(NestclawError);
    expect((mapped as NestclawError).code).toBe('database_unavailable');
    expect((mapped as NestclawError).message).toMatch(/max_connections.*database\.pool_size/);
  });

  it('finds it under a wrapping error, as Prisma reports it', () => {
    const wrapped = Object.assign(new Error('adapter failed'), { cause: pgError('53300', 'too many connections for role "x"') });
    expect((mapDatabaseError(wrapped) as NestclawError).code).toBe('database_unavailable');
  });

  it('keeps "not reachable" for a refused connection and passes other errors through', () => {
    expect((mapDatabaseError(pgError('ECONNREFUSED', 'connect ECONNREFUSED')) as NestclawError).message).toMatch(/not reachable/);
    const other = pgError('42P01', 'relation "nope" does not exist');
    expect(mapDatabaseError(other)).toBe(other);
  });
});
