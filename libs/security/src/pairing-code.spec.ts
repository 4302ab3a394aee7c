import { apiPairingCode, channelPairingCode, normalizeCode, UNAMBIGUOUS_ALPHABET } from './pairing-code';

describe('pairing codes', () => {
  it('channel codes are 8 characters from an alphabet without 0/O/1/I/L', () => {
    expect(UNAMBIGUOUS_ALPHABET).not.toMatch(/[01OIL]/);
    for (let i = 0; i < 200; i++) expect(channelPairingCode()).toMatch(/^[ABCDEFGHJKMNPQRSTUVWXYZ2-9]{8}$/);
  });

  it('API codes are 6 digits, leading zeros kept', () => {
    for (let i = 0; i < 200; i++) expect(apiPairingCode()).toMatch(/^\d{6}$/);
  });

  it('codes are compared ignoring case, spaces and dashes', () => {
    expect(normalizeCode(' abcd-efgh ')).toBe('ABCDEFGH');
  });
});
