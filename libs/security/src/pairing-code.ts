import { createHash, randomInt } from 'node:crypto';

/** No 0/O, 1/I/L: codes are read off a phone screen and typed into a terminal. */
export const UNAMBIGUOUS_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';

/** An 8-character channel pairing code (about 40 bits) from the unambiguous alphabet. */
export function channelPairingCode(): string {
  let code = '';
  for (let i = 0; i < 8; i++) code += UNAMBIGUOUS_ALPHABET[randomInt(UNAMBIGUOUS_ALPHABET.length)];
  return code;
}

/** A 6-digit API pairing code, leading zeros kept. */
export function apiPairingCode(): string {
  return String(randomInt(1_000_000)).padStart(6, '0');
}

/** Codes are compared case-insensitively, ignoring spaces and dashes people add when typing. */
export function normalizeCode(code: string): string {
  return code.replace(/[\s-]/g, '').toUpperCase();
}

export function sha256Hex(s: string): string {
  return createHash('sha256').update(s).digest('hex');
}
