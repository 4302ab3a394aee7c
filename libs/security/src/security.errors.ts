import { NestclawError } from '@nestclaw/common';

export const pairingLocked = (untilMs: number) =>
  new NestclawError('pairing_locked', `Too many wrong pairing codes; pairing is locked for ${Math.ceil(untilMs / 60_000)} more minute(s)`, {
    retryAfterSeconds: Math.ceil(untilMs / 1000),
  });

export const wrongPairingCode = () => new NestclawError('unauthorized', 'Wrong or expired pairing code');

/** A wrong token or login code at browser sign-in, saying how to get a good one. */
export const signInRefused = (what: 'token' | 'code') =>
  new NestclawError(
    'unauthorized',
    what === 'code'
      ? 'This login code is wrong, used or expired (codes last 2 minutes, once): run `nestclaw ui` for a new link'
      : 'Invalid or revoked token: run `nestclaw ui` on the gateway host to sign in, or `nestclaw pair` to pair a client',
  );
