import { NestclawError } from '@nestclaw/common';

export const pairingLocked = (untilMs: number) =>
  new NestclawError('pairing_locked', `Too many wrong pairing codes; pairing is locked for ${Math.ceil(untilMs / 60_000)} more minute(s)`, {
    retryAfterSeconds: Math.ceil(untilMs / 1000),
  });

export const wrongPairingCode = () => new NestclawError('unauthorized', 'Wrong or expired pairing code');
