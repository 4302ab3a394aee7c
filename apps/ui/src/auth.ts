import { api, ApiError } from './api';

export interface SignedIn {
  principal: { id: string; name: string; scopes: string[] };
  expiresAt: string;
}

/** Who this browser is signed in as (the cookie's session), or null. */
export async function currentSession(): Promise<SignedIn | null> {
  try {
    return await api<SignedIn>('/v1/auth/session');
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) return null;
    throw e;
  }
}

/** Trades a token or a one-time login code for the HttpOnly session cookie. */
export function signIn(secret: { token: string } | { code: string }): Promise<SignedIn> {
  return api<SignedIn>('/v1/auth/session', { json: secret });
}

export async function signOut(): Promise<void> {
  await api<unknown>('/v1/auth/session', { method: 'DELETE' });
}

/**
 * A login link (`nestclaw ui`) carries its one-time code in the fragment, which never reaches a
 * server or a log. It is taken out of the address bar before anything else runs, so it is not left
 * in history or a bookmark even if the exchange fails.
 */
export function takeLoginCode(): string | null {
  const match = /^#login=([A-Za-z0-9_-]{4,200})$/.exec(location.hash);
  if (!location.hash.startsWith('#login=')) return null;
  history.replaceState(history.state, '', location.pathname + location.search);
  return match ? match[1] : null;
}

export const hasScope = (session: SignedIn | null, scope: string) => !!session?.principal.scopes.includes(scope);
