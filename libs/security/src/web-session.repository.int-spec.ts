import { randomUUID } from 'node:crypto';
import { IntDatabase, openIntDatabase, uniqueId } from '@nestclaw/testing';
import { PairedTokenRepository } from './paired-token.repository';
import { WebLoginCodeRepository } from './web-login-code.repository';
import { WebSessionRepository } from './web-session.repository';

const DAY_MS = 24 * 3_600_000;

describe('WebSessionRepository and WebLoginCodeRepository (real database)', () => {
  let int: IntDatabase;
  let sessions: WebSessionRepository;
  let codes: WebLoginCodeRepository;
  let tokens: PairedTokenRepository;
  beforeAll(async () => {
    int = await openIntDatabase();
    sessions = new WebSessionRepository(int.db);
    codes = new WebLoginCodeRepository(int.db);
    tokens = new PairedTokenRepository(int.db);
  });
  afterAll(() => int?.close());

  const expiresAt = async (id: string) =>
    (await int.db.pool.query<{ expires_at: Date }>(`SELECT expires_at FROM web_sessions WHERE id = $1`, [id])).rows[0].expires_at;
  const newSession = async (tokenId: string | null = null, expires = new Date(Date.now() + DAY_MS)) => {
    const id = randomUUID();
    const hash = uniqueId('hash');
    await sessions.insert(id, hash, tokenId, ['chat'], expires);
    return { id, hash };
  };

  it('slides the expiry forward once the last stamp is a minute old, and not on every request', async () => {
    const { id, hash } = await newSession(null, new Date(Date.now() + 60_000));
    const before = await expiresAt(id);
    expect(await sessions.findLiveAndTouch(hash, 7 * DAY_MS)).toMatchObject({ id, token_id: null });
    expect(await expiresAt(id)).toEqual(before);
    await int.db.pool.query(`UPDATE web_sessions SET last_seen_at = now() - interval '2 minutes' WHERE id = $1`, [id]);
    await sessions.findLiveAndTouch(hash, 7 * DAY_MS);
    expect((await expiresAt(id)).getTime()).toBeGreaterThan(Date.now() + 7 * DAY_MS - 60_000);
  });

  it('refuses an expired session without reviving it', async () => {
    const { id, hash } = await newSession(null, new Date(Date.now() - 1000));
    await int.db.pool.query(`UPDATE web_sessions SET last_seen_at = now() - interval '2 minutes' WHERE id = $1`, [id]);
    expect(await sessions.findLiveAndTouch(hash, 7 * DAY_MS)).toBeNull();
    expect((await expiresAt(id)).getTime()).toBeLessThan(Date.now());
  });

  it("refuses a paired token's session as soon as the token is revoked, before its rows are deleted", async () => {
    const tokenId = randomUUID();
    const name = uniqueId('laptop');
    await tokens.insert(tokenId, name, uniqueId('token-hash'), ['chat']);
    const { hash } = await newSession(tokenId);
    expect(await sessions.findLiveAndTouch(hash, DAY_MS)).toMatchObject({ token_id: tokenId, token_name: name, scopes: ['chat'] });
    await tokens.markRevoked(tokenId);
    expect(await sessions.findLiveAndTouch(hash, DAY_MS)).toBeNull();
    expect(await sessions.deleteByToken(tokenId)).toBe(1);
  });

  it('deletes a session by its hash once: a second sign-out finds nothing', async () => {
    const { id, hash } = await newSession();
    expect(await sessions.deleteByHash(hash)).toBe(id);
    expect(await sessions.deleteByHash(hash)).toBeNull();
  });

  it('redeems a login code once when two browsers race with it', async () => {
    const hash = uniqueId('code-hash');
    await codes.insert(hash, null, ['admin', 'chat'], new Date(Date.now() + 120_000));
    const results = await Promise.all([codes.use(hash), codes.use(hash), codes.use(hash)]);
    expect(results.filter((r) => r !== null)).toEqual([{ token_id: null, token_name: null, scopes: ['admin', 'chat'] }]);
  });

  it('names no token for a code whose token was revoked after it was made', async () => {
    const tokenId = randomUUID();
    await tokens.insert(tokenId, uniqueId('phone'), uniqueId('token-hash'), ['chat']);
    const hash = uniqueId('code-hash');
    await codes.insert(hash, tokenId, ['chat'], new Date(Date.now() + 120_000));
    await tokens.markRevoked(tokenId);
    expect(await codes.use(hash)).toEqual({ token_id: tokenId, token_name: null, scopes: ['chat'] });
  });
});
