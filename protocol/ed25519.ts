/**
 * Ed25519 verification (RFC 8032) for every side: the kiosk main process, a
 * browser and tests. Pure JS (@noble/ed25519) so it runs anywhere; the issuer
 * signs with node:crypto instead (issuer/signing.ts), which is much faster.
 *
 * Like @noble/ed25519, verify returns false on any malformed input and never
 * throws for bad data: a scanner must turn garbage into a refusal, not a crash.
 */
import * as ed from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2.js';

ed.hashes.sha512 = sha512;

export const PUBLIC_KEY_LENGTH = 32;

export function verifyEd25519(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
  if (signature.length !== 64 || publicKey.length !== PUBLIC_KEY_LENGTH) return false;
  try {
    // zip215: false = the strict RFC 8032 rules, the same ones OpenSSL (the issuer's signer) follows.
    return ed.verify(signature, message, publicKey, { zip215: false });
  } catch {
    return false;
  }
}

/** Pure-JS signing, for tests and tools that run outside Node (the issuer uses node:crypto). */
export function signEd25519(message: Uint8Array, secretKey: Uint8Array): Uint8Array {
  return ed.sign(message, secretKey);
}

export function publicKeyFromSecret(secretKey: Uint8Array): Uint8Array {
  return ed.getPublicKey(secretKey);
}
