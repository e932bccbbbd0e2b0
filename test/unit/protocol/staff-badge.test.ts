/** protocol/staff-badge.ts and protocol/kiosk-certificate.ts: codes the issuer signs for its crew and its kiosks (docs/protocol.md "Staff badge", "Kiosk certificate"). */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { encodeBase64Url } from '../../../protocol/base64url.js';
import { publicKeyFromSecret, signEd25519 } from '../../../protocol/ed25519.js';
import { kidFromPublicKey } from '../../../protocol/kid.js';
import { QrCodeError } from '../../../protocol/qr-code-error.js';
import {
  checkKioskCertificate,
  decodeKioskCertificate,
  encodeKioskCertificate,
  type KioskCertificatePayload,
} from '../../../protocol/kiosk-certificate.js';
import {
  checkStaffBadge,
  decodeStaffBadge,
  encodeStaffBadge,
  STAFF_BADGE_CHECKS,
  type StaffBadgePayload,
} from '../../../protocol/staff-badge.js';
import { decodeTicketCode } from '../../../protocol/ticket-code.js';
import type { PublicKey } from '../../../protocol/types.js';

const ISS = 'https://issuer.example';
const NOW_S = 1_800_000_000;
const NOW = NOW_S * 1000;

function issuerKey(validFrom = '2020-01-01T00:00:00.000Z', validUntil: string | null = null) {
  const secret = new Uint8Array(randomBytes(32));
  const publicKey = publicKeyFromSecret(secret);
  const key: PublicKey = {
    kid: kidFromPublicKey(publicKey),
    alg: 'Ed25519',
    public_key: encodeBase64Url(publicKey),
    valid_from: validFrom,
    valid_until: validUntil,
  };
  return { key, sign: (message: Uint8Array) => signEd25519(message, secret) };
}

const issuer = issuerKey();
const badgeOf = (over: Partial<StaffBadgePayload> = {}): StaffBadgePayload => ({
  v: 1,
  iss: ISS,
  kid: issuer.key.kid,
  sid: '01JSTAFF000000000000000001',
  name: 'Kim Lee',
  role: 'supervisor',
  eids: ['evt_a', 'evt_b'],
  iat: NOW_S - 3600,
  nbf: NOW_S - 3600,
  exp: NOW_S + 3600,
  ...over,
});
const ctx = { issuer: ISS, keys: [issuer.key], nowMs: NOW, eid: 'evt_a', isRevoked: (_sid: string) => false };

describe('staff badge', () => {
  it('round-trips and unlocks at a kiosk of one of its events', () => {
    const code = encodeStaffBadge(badgeOf(), issuer.sign);
    expect(code.startsWith('tstaff1.')).toBe(true);
    expect(decodeStaffBadge(code).payload).toEqual(badgeOf());
    expect(checkStaffBadge(code, ctx)).toEqual({ ok: true, badge: badgeOf() });
    expect(checkStaffBadge(code, { ...ctx, eid: 'evt_b' }).ok).toBe(true);
  });

  it('is refused, naming why, for each failed check in order', () => {
    const other = issuerKey();
    const cases: [string, string, Partial<typeof ctx>][] = [
      ['decode', 'tstaff1.e30.AA', {}],
      ['issuer', encodeStaffBadge(badgeOf({ iss: 'https://other.example' }), issuer.sign), {}],
      ['key_known', encodeStaffBadge(badgeOf({ kid: other.key.kid }), other.sign), {}],
      ['key_window', encodeStaffBadge(badgeOf({ iat: 1_000_000 }), issuer.sign), {}],
      ['signature', encodeStaffBadge(badgeOf(), other.sign), {}],
      ['event', encodeStaffBadge(badgeOf(), issuer.sign), { eid: 'evt_c' }],
      ['not_yet_valid', encodeStaffBadge(badgeOf({ nbf: NOW_S + 60 }), issuer.sign), {}],
      ['expired', encodeStaffBadge(badgeOf({ exp: NOW_S }), issuer.sign), {}],
      ['revoked', encodeStaffBadge(badgeOf(), issuer.sign), { isRevoked: (sid: string) => sid === badgeOf().sid }],
    ];
    expect(cases.map(([check]) => check)).toEqual([...STAFF_BADGE_CHECKS]);
    for (const [check, code, over] of cases) {
      const result = checkStaffBadge(code, { ...ctx, ...over });
      expect(result, check).toMatchObject({ ok: false, check });
    }
  });

  it('refuses a role it does not know, and is never a ticket', () => {
    const unknownRole = encodeStaffBadge({ ...badgeOf(), role: 'admin' as never }, issuer.sign);
    expect(() => decodeStaffBadge(unknownRole)).toThrow(expect.objectContaining({ code: 'wrong_field_type', field: 'role' }));
    expect(() => decodeTicketCode(encodeStaffBadge(badgeOf(), issuer.sign))).toThrow(QrCodeError);
  });

  it("names no part of the code in a refusal's message", () => {
    const code = encodeStaffBadge(badgeOf(), issuerKey().sign);
    const result = checkStaffBadge(code, ctx);
    expect(result.ok).toBe(false);
    if (!result.ok) for (const segment of code.slice('tstaff1.'.length).split('.')) expect(result.message).not.toContain(segment);
  });
});

describe('kiosk certificate', () => {
  const kioskSecret = new Uint8Array(randomBytes(32));
  const kioskPublic = publicKeyFromSecret(kioskSecret);
  const certificateOf = (over: Partial<KioskCertificatePayload> = {}): KioskCertificatePayload => ({
    v: 1,
    iss: ISS,
    kid: issuer.key.kid,
    scanner_id: 'scanner-1',
    eid: 'evt_a',
    gate: 'A',
    pub: encodeBase64Url(kioskPublic),
    iat: NOW_S - 60,
    exp: NOW_S + 86_400,
    ...over,
  });
  const certCtx = { issuer: ISS, keys: [issuer.key], nowMs: NOW, eid: 'evt_a', isScannerRevoked: (_id: string) => false };

  it("binds the scanner, event and gate to the kiosk's own public key", () => {
    const code = encodeKioskCertificate(certificateOf(), issuer.sign);
    expect(code.startsWith('tkc1.')).toBe(true);
    const result = checkKioskCertificate(code, certCtx);
    expect(result).toEqual({ ok: true, certificate: certificateOf(), publicKey: kioskPublic });
  });

  it('is refused when forged, for another event, expired or its scanner revoked', () => {
    expect(checkKioskCertificate(encodeKioskCertificate(certificateOf(), issuerKey().sign), certCtx)).toMatchObject({
      ok: false,
      check: 'signature',
    });
    expect(checkKioskCertificate(encodeKioskCertificate(certificateOf({ eid: 'evt_b' }), issuer.sign), certCtx)).toMatchObject({
      ok: false,
      check: 'event',
    });
    expect(checkKioskCertificate(encodeKioskCertificate(certificateOf({ exp: NOW_S }), issuer.sign), certCtx)).toMatchObject({
      ok: false,
      check: 'expired',
    });
    expect(
      checkKioskCertificate(encodeKioskCertificate(certificateOf(), issuer.sign), {
        ...certCtx,
        isScannerRevoked: (id: string) => id === 'scanner-1',
      }),
    ).toMatchObject({ ok: false, check: 'revoked' });
  });

  it('refuses a public key that is not 32 bytes', () => {
    const code = encodeKioskCertificate(certificateOf({ pub: encodeBase64Url(new Uint8Array(31)) }), issuer.sign);
    expect(() => decodeKioskCertificate(code)).toThrow(expect.objectContaining({ field: 'pub' }));
    expect(checkKioskCertificate(code, certCtx)).toMatchObject({ ok: false, check: 'decode' });
  });
});
