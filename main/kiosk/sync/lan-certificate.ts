/**
 * This kiosk's own LAN key (docs/kiosk.md "Kiosks on one LAN"): the Ed25519 pair it makes at enrollment, the
 * signing key read back from its stored secret, and a look at the certificate the issuer returned for it. The
 * certificate's format and checks are protocol/kiosk-certificate.ts (docs/protocol.md "Kiosk certificate").
 */
import crypto from 'node:crypto';
import { decodeKioskCertificate, type KioskCertificatePayload } from '../../../protocol/kiosk-certificate.js';

/** The payload of a certificate without checking its signature (this kiosk's own, to see it names its key); null when malformed. */
export function peekKioskCertificate(code: string): KioskCertificatePayload | null {
  try {
    return decodeKioskCertificate(code).payload;
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

// The certified keys are few (one per peer) and reused for every message.
const peerKeys = new Map<string, crypto.KeyObject>();

/** Ed25519 verification with node:crypto (OpenSSL: fast on a small kiosk PC); false on any malformed input, never a throw. */
export function verifyEd25519(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
  if (signature.length !== 64 || publicKey.length !== 32) return false;
  try {
    const x = Buffer.from(publicKey).toString('base64url');
    let key = peerKeys.get(x);
    if (!key) {
      key = crypto.createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
      if (peerKeys.size > 256) peerKeys.clear();
      peerKeys.set(x, key);
    }
    return crypto.verify(null, message, key, signature);
  } catch {
    return false;
  }
}
