/**
 * A kiosk's LAN certificate as the kiosk reads it (docs/protocol.md "LAN messages between kiosks"): the issuer's
 * word that a scanner of an event, at a gate, signs its LAN messages with a given Ed25519 public key, until its
 * scanner key expires. `tkc1.<base64url(payload JSON)>.<base64url(64-byte signature)>`, signed like tickets by the
 * issuer's signing key named by `kid`. The shared protocol module (protocol/kiosk-certificate.ts) comes from the
 * lead's protocol commit; this file holds what the LAN needs of it until then, with the same format.
 */
import crypto from 'node:crypto';
import type { PublicKey } from '../../../protocol/index.js';

export const KIOSK_CERTIFICATE_PREFIX = 'tkc1.';

export interface KioskCertificatePayload {
  v: 1;
  iss: string;
  kid: string;
  scanner_id: string;
  eid: string;
  gate: string | null;
  /** base64url of the 32-byte Ed25519 public key the kiosk signs with. */
  pub: string;
  iat: number;
  exp: number;
}

export type CertificateCheck =
  { ok: true; certificate: KioskCertificatePayload; publicKey: crypto.KeyObject } | { ok: false; problem: string };

export interface CertificateContext {
  iss: string;
  eid: string;
  keys: readonly PublicKey[];
  nowMs: number;
  revokedScanners: ReadonlySet<string>;
}

const B64 = /^[A-Za-z0-9_-]+$/;

/** Encodes and signs a certificate (tests; the issuer signs its own). */
export function encodeKioskCertificate(payload: KioskCertificatePayload, sign: (message: Uint8Array) => Uint8Array): string {
  const segment = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
  return `${KIOSK_CERTIFICATE_PREFIX}${segment}.${Buffer.from(sign(Buffer.from(segment, 'ascii'))).toString('base64url')}`;
}

/** Ed25519 public key of 32 raw bytes (base64url) as a node:crypto key; null when it is not one. */
export function ed25519PublicKey(base64url: string): crypto.KeyObject | null {
  if (!/^[A-Za-z0-9_-]{43}$/.test(base64url)) return null;
  try {
    return crypto.createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: base64url }, format: 'jwk' });
  } catch {
    return null;
  }
}

/** Decodes and checks a certificate: the issuer's signature, issuer, event, validity, the scanner not revoked. Never throws. */
export function checkKioskCertificate(code: string, ctx: CertificateContext): CertificateCheck {
  const fail = (problem: string): CertificateCheck => ({ ok: false, problem });
  if (code.length > 2048 || !code.startsWith(KIOSK_CERTIFICATE_PREFIX)) return fail('not a kiosk certificate');
  const parts = code.slice(KIOSK_CERTIFICATE_PREFIX.length).split('.');
  if (parts.length !== 2 || !B64.test(parts[0]!) || !/^[A-Za-z0-9_-]{86}$/.test(parts[1]!)) return fail('not a kiosk certificate');
  let payload: KioskCertificatePayload;
  try {
    payload = JSON.parse(Buffer.from(parts[0]!, 'base64url').toString('utf8')) as KioskCertificatePayload;
  } catch {
    return fail('certificate is not JSON');
  }
  if (typeof payload !== 'object' || payload === null || payload.v !== 1) return fail('certificate of an unknown version');
  const issuerKey = ctx.keys.find((key) => key.kid === payload.kid);
  if (!issuerKey) return fail('certificate signed by a key the issuer does not publish');
  const verifier = ed25519PublicKey(issuerKey.public_key);
  const signature = Buffer.from(parts[1]!, 'base64url');
  let signed: boolean;
  try {
    signed = verifier !== null && crypto.verify(null, Buffer.from(parts[0]!, 'ascii'), verifier, signature);
  } catch {
    signed = false;
  }
  if (!signed) return fail('certificate not signed by the issuer (bad signature)');
  if (payload.iss !== ctx.iss) return fail('certificate of another issuer');
  if (payload.eid !== ctx.eid) return fail('certificate for another event');
  if (typeof payload.scanner_id !== 'string' || (payload.gate !== null && typeof payload.gate !== 'string'))
    return fail('certificate without a scanner');
  if (!Number.isSafeInteger(payload.iat) || !Number.isSafeInteger(payload.exp)) return fail('certificate without a validity');
  if (ctx.nowMs < payload.iat * 1000 - 60_000) return fail('certificate not valid yet');
  if (ctx.nowMs > payload.exp * 1000) return fail('certificate expired');
  if (ctx.revokedScanners.has(payload.scanner_id)) return fail(`scanner ${payload.scanner_id} is revoked`);
  const publicKey = typeof payload.pub === 'string' ? ed25519PublicKey(payload.pub) : null;
  if (!publicKey) return fail('certificate without a usable public key');
  return { ok: true, certificate: payload, publicKey };
}

/** The payload of a certificate without checking it (this kiosk's own, to see it names its own key); null when unreadable. */
export function peekKioskCertificate(code: string): KioskCertificatePayload | null {
  if (!code.startsWith(KIOSK_CERTIFICATE_PREFIX)) return null;
  try {
    const payload = JSON.parse(
      Buffer.from(code.slice(KIOSK_CERTIFICATE_PREFIX.length).split('.')[0]!, 'base64url').toString('utf8'),
    ) as unknown;
    return typeof payload === 'object' && payload !== null ? (payload as KioskCertificatePayload) : null;
  } catch {
    return null;
  }
}

/** A fresh Ed25519 key pair for this kiosk's LAN messages: the 32-byte secret seed and public key, base64url. */
export function newLanKeyPair(): { secret: string; publicKey: string } {
  const { privateKey } = crypto.generateKeyPairSync('ed25519');
  const jwk = privateKey.export({ format: 'jwk' });
  return { secret: jwk.d!, publicKey: jwk.x! };
}

/** The signing key of a stored secret seed (base64url), with its public half; null when it is not one. */
export function lanSigningKey(secret: string): { privateKey: crypto.KeyObject; publicKey: string } | null {
  if (!/^[A-Za-z0-9_-]{43}$/.test(secret)) return null;
  try {
    const seed = Buffer.from(secret, 'base64url');
    // PKCS#8 wrapping of a raw Ed25519 seed (RFC 8410): a fixed 16-byte header, then the 32 bytes.
    const der = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]);
    const privateKey = crypto.createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
    const x = crypto.createPublicKey(privateKey).export({ format: 'jwk' }).x!;
    return { privateKey, publicKey: x };
  } catch {
    return null;
  }
}
