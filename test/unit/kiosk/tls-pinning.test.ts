import { describe, expect, it } from 'vitest';
import { CertificatePinMismatchError, fingerprintMatches, pinnedAgent } from '../../../main/kiosk/sync/tls-pinning.js';

const PIN = Array.from({ length: 32 }, (_, i) => (i * 7).toString(16).padStart(2, '0').toUpperCase()).join(':');

describe('fingerprintMatches', () => {
  it.each([
    ['the same fingerprint', PIN, true],
    ['the same in lowercase', PIN.toLowerCase(), true],
    ['one byte different', `FF${PIN.slice(2)}`, false],
    ['a prefix of it', PIN.slice(0, 47), false],
    ['no certificate (empty)', '', false],
    ['no certificate (null)', null, false],
    ['no certificate (undefined)', undefined, false],
  ])('%s → %s', (_name, presented, expected) => {
    expect(fingerprintMatches(PIN, presented)).toBe(expected);
  });
});

describe('pinnedAgent', () => {
  it('accepts only a well-formed SHA-256 fingerprint', async () => {
    expect(() => pinnedAgent('not-a-fingerprint')).toThrow(TypeError);
    expect(() => pinnedAgent(PIN.slice(3))).toThrow(TypeError);
    await pinnedAgent(PIN).close();
  });
});

describe('CertificatePinMismatchError', () => {
  it('says the certificate does not match, with a stable code', () => {
    const error = new CertificatePinMismatchError(PIN, `FF${PIN.slice(2)}`);
    expect(error.code).toBe('ERR_TLS_CERT_PIN_MISMATCH');
    expect(error.message).toContain('does not match the pinned fingerprint');
  });
});
