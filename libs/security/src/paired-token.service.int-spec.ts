import { DatabaseNotifications } from '@nestclaw/db';
import { IntDatabase, openIntDatabase, uniqueId } from '@nestclaw/testing';
import { PairedTokenRepository } from './paired-token.repository';
import { PairedTokenService } from './paired-token.service';
import { WebSessionEvents } from './web-session.events';
import { WebSessionRepository } from './web-session.repository';

describe('PairedTokenService (real database)', () => {
  let int: IntDatabase;
  let tokens: PairedTokenService;
  beforeAll(async () => {
    int = await openIntDatabase();
    tokens = new PairedTokenService(
      new PairedTokenRepository(int.db),
      new WebSessionRepository(int.db),
      new WebSessionEvents(new DatabaseNotifications(int.db)),
    );
  });
  afterAll(() => int?.close());

  it('authenticates an issued token as its principal with its scopes', async () => {
    const name = uniqueId('laptop');
    const { token, info } = await tokens.issue(name, ['chat', 'approve']);
    expect(await tokens.authenticate(token)).toEqual({ id: info.id, name, scopes: ['chat', 'approve'] });
  });

  it('stores only a hash, never the token itself', async () => {
    const { token, info } = await tokens.issue(uniqueId('phone'), ['chat']);
    const { rows } = await int.db.pool.query<{ row: string }>(`SELECT row_to_json(t)::text AS row FROM api_tokens t WHERE id = $1`, [
      info.id,
    ]);
    expect(rows[0].row).not.toContain(token);
  });

  it('refuses a token nobody issued', async () => {
    expect(await tokens.authenticate(`ncw_${uniqueId('forged')}`)).toBeNull();
  });

  it('records when a token was last used', async () => {
    const { token, info } = await tokens.issue(uniqueId('cli'), ['chat']);
    expect(info.lastUsedAt).toBeNull();
    await tokens.authenticate(token);
    const listed = (await tokens.list()).find((t) => t.id === info.id);
    expect(listed?.lastUsedAt).toEqual(expect.any(String));
  });

  it('writes the last use at most once a minute, and again once it is a minute old', async () => {
    const { token, info } = await tokens.issue(uniqueId('scraper'), ['metrics']);
    const lastUsed = async () =>
      (await int.db.pool.query<{ t: Date }>(`SELECT last_used_at AS t FROM api_tokens WHERE id = $1`, [info.id])).rows[0].t;
    await tokens.authenticate(token);
    const first = await lastUsed();
    await new Promise((r) => setTimeout(r, 20));
    await tokens.authenticate(token);
    expect(await lastUsed()).toEqual(first); // the row is not written again within the minute
    await int.db.pool.query(`UPDATE api_tokens SET last_used_at = now() - interval '61 seconds' WHERE id = $1`, [info.id]);
    const aged = await lastUsed();
    expect(await tokens.authenticate(token)).toMatchObject({ id: info.id });
    expect((await lastUsed()).getTime()).toBeGreaterThan(aged.getTime() + 60_000);
  });

  it('refuses a token revoked just after a use, on the next request', async () => {
    const { token, info } = await tokens.issue(uniqueId('busy'), ['chat']);
    expect(await tokens.authenticate(token)).not.toBeNull();
    await tokens.revoke(info.id);
    expect(await tokens.authenticate(token)).toBeNull();
  });

  it('refuses a revoked token on its next use', async () => {
    const { token, info } = await tokens.issue(uniqueId('old'), ['chat']);
    const revoked = await tokens.revoke(info.id);
    expect(revoked.revokedAt).toEqual(expect.any(String));
    expect(await tokens.authenticate(token)).toBeNull();
  });

  it('revokes by a unique id prefix', async () => {
    const { token, info } = await tokens.issue(uniqueId('short'), ['chat']);
    await tokens.revoke(info.id.slice(0, 13));
    expect(await tokens.authenticate(token)).toBeNull();
  });

  it('says not_found for an id prefix that matches no token', async () => {
    await expect(tokens.revoke('ffffffff-ffff')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('refuses an id that is not a UUID or its prefix', async () => {
    await expect(tokens.revoke("x' OR 1=1 --")).rejects.toMatchObject({ code: 'invalid_request' });
  });
});
