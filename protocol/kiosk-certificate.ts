/**
 * A kiosk's LAN certificate: `tkc1.<base64url(payload JSON)>.<base64url(signature)>`,
 * signed by the issuer's ticket-signing key named by `kid` (docs/protocol.md
 * "Kiosk certificate"). It binds a scanner id, its event and gate to the
 * Ed25519 public key the kiosk made at enrollment, so kiosks sign their own
 * LAN messages and check each other's against the issuer's published keys:
 * no secret is shared between kiosks. Pure.
 */
import { decodeBase64Url } from './base64url.js';
import { FieldError, requireInteger, requireString, type JsonObject } from './fields.js';
import { PUBLIC_KEY_LENGTH } from './ed25519.js';
import {
  decodeSignedCode,
  encodeSignedCode,
  readSignedByIssuer,
  type DecodedSignedCode,
  type IssuerSignatureContext,
} from './signed-code.js';

export const KIOSK_CERTIFICATE_PREFIX = 'tkc1.';

export interface KioskCertificatePayload {
  v: 1;
  iss: string;
  kid: string;
  scanner_id: string;
  eid: string;
  /** The gate the kiosk's key is scoped to, or null. */
  gate: string | null;
  /** The kiosk's Ed25519 public key, base64url of 32 bytes. */
  pub: string;
  /** Unix seconds: made, and valid until (the scanner key's expiry). */
  iat: number;
  exp: number;
}

export type DecodedKioskCertificate = DecodedSignedCode<KioskCertificatePayload>;

export function encodeKioskCertificate(payload: KioskCertificatePayload, sign: (message: Uint8Array) => Uint8Array): string {
  return encodeSignedCode(KIOSK_CERTIFICATE_PREFIX, payload, sign);
}

/** Throws a QrCodeError for a malformed certificate (a public key that is not 32 bytes of base64url is malformed too). */
export function decodeKioskCertificate(code: string): DecodedKioskCertificate {
  return decodeSignedCode(KIOSK_CERTIFICATE_PREFIX, 'kiosk certificate', code, readKioskCertificatePayload);
}

function readKioskCertificatePayload(obj: JsonObject): KioskCertificatePayload {
  const v = requireInteger(obj, 'v');
  if (v !== 1) throw new FieldError('v', 'wrong_type');
  const gate = obj['gate'];
  if (gate !== null && typeof gate !== 'string') throw new FieldError('gate', 'wrong_type');
  const pub = requireString(obj, 'pub');
  if (!isPublicKeyText(pub)) throw new FieldError('pub', 'wrong_type');
  return {
    v,
    iss: requireString(obj, 'iss'),
    kid: requireString(obj, 'kid'),
    scanner_id: requireString(obj, 'scanner_id'),
    eid: requireString(obj, 'eid'),
    gate,
    pub,
    iat: requireInteger(obj, 'iat'),
    exp: requireInteger(obj, 'exp'),
  };
}

/** base64url of exactly 32 bytes: an Ed25519 public key. */
export function isPublicKeyText(text: string): boolean {
  try {
    return decodeBase64Url(text).length === PUBLIC_KEY_LENGTH;
  } catch {
    return false;
  }
}

/** Why a certificate is not believed, in the order checked (docs/protocol.md "Kiosk certificate"). */
export const KIOSK_CERTIFICATE_CHECKS = [
  'decode',
  'issuer',
  'key_known',
  'key_window',
  'signature',
  'event',
  'expired',
  'revoked',
] as const;
export type KioskCertificateCheck = (typeof KIOSK_CERTIFICATE_CHECKS)[number];

export interface KioskCertificateContext extends IssuerSignatureContext {
  /** The receiver's event. */
  eid: string;
  /** Whether the issuer revoked the scanner (the revocation list's `revoked_scanners`, as last synced). */
  isScannerRevoked: (scannerId: string) => boolean;
}

export type KioskCertificateCheckResult =
  { ok: true; certificate: KioskCertificatePayload; publicKey: Uint8Array } | { ok: false; check: KioskCertificateCheck; message: string };

export function checkKioskCertificate(code: string, ctx: KioskCertificateContext): KioskCertificateCheckResult {
  const read = readSignedByIssuer(code, 'kiosk certificate', decodeKioskCertificate, ctx);
  if (!read.ok) return read;
  const certificate = read.payload;
  if (certificate.eid !== ctx.eid) return { ok: false, check: 'event', message: 'kiosk certificate for another event' };
  if (ctx.nowMs >= certificate.exp * 1000) return { ok: false, check: 'expired', message: 'kiosk certificate has expired' };
  if (ctx.isScannerRevoked(certificate.scanner_id)) {
    return { ok: false, check: 'revoked', message: `scanner ${certificate.scanner_id} was revoked` };
  }
  return { ok: true, certificate, publicKey: decodeBase64Url(certificate.pub) };
}
