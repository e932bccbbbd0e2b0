/** Key identifier (docs/protocol.md "Keys"): first 8 lowercase hex chars of SHA-256 of the raw 32-byte key. */
import { sha256 } from '@noble/hashes/sha2.js';
import { PUBLIC_KEY_LENGTH } from './ed25519.js';

export const KID_LENGTH = 8;

export function kidFromPublicKey(rawPublicKey: Uint8Array): string {
  if (rawPublicKey.length !== PUBLIC_KEY_LENGTH) throw new Error(`an Ed25519 public key is ${PUBLIC_KEY_LENGTH} bytes`);
  let hex = '';
  for (const byte of sha256(rawPublicKey).subarray(0, KID_LENGTH / 2)) hex += byte.toString(16).padStart(2, '0');
  return hex;
}
