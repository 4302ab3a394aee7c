import { NestclawError } from '@nestclaw/common';
import { IntDatabase, openIntDatabase, uniqueId } from '@nestclaw/testing';
import { viaPrisma } from './via-prisma';

/** A query made through Prisma fails as the same query made through pg (docs/adr/0008-data-path.md). */
describe('viaPrisma (real database)', () => {
  let int: IntDatabase;
  beforeAll(async () => (int = await openIntDatabase()));
  afterAll(() => int.close());

  const failure = async (run: () => Promise<unknown>) => {
    try {
      await run();
    } catch (e) {
      return e;
    }
    throw new Error('expected a failure');
  };

  it('maps a unique violation to the same conflict, naming the same constraint, as pg', async () => {
    const codeHash = uniqueId('hash');
    const data = { codeHash, scopes: ['chat'], expiresAt: new Date(Date.now() + 60_000) };
    await viaPrisma(() => int.db.prisma.apiPairingCode.create({ data }));
    const viaPrismaError = await failure(() => viaPrisma(() => int.db.prisma.apiPairingCode.create({ data })));
    const viaPg = await failure(() =>
      int.db.query(`INSERT INTO api_pairing_codes (code_hash, scopes, expires_at) VALUES ($1, $2, $3)`, [codeHash, ['chat'], new Date()]),
    );
    expect(viaPrismaError).toBeInstanceOf(NestclawError);
    expect((viaPrismaError as NestclawError).code).toBe('conflict');
    expect((viaPrismaError as NestclawError).message).toBe((viaPg as NestclawError).message);
    expect((viaPrismaError as NestclawError).message).toContain('api_pairing_codes_code_hash_key');
  });

  it('maps text PostgreSQL cannot store to invalid_request, as pg', async () => {
    const e = await failure(() =>
      viaPrisma(() => int.db.prisma.securityEvent.create({ data: { kind: 'pair_failed', subject: `nul\u0000byte ${uniqueId('s')}` } })),
    );
    expect((e as NestclawError).code).toBe('invalid_request');
  });
});
