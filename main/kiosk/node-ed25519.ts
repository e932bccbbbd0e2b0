/**
 * Ed25519 verification with node:crypto (OpenSSL) for the kiosk's Node
 * process: a ticket must turn into a verdict in a blink, and the portable
 * pure-JS verifier costs milliseconds per scan on a small kiosk PC
 * (docs/benchmarks.md). Same contract as protocol/ed25519.ts: false on any
 * malformed input, never a throw.
 */
import crypto from 'node:crypto';

// Public keys are few (the discovery document's) and reused for every scan.
const keyObjects = new Map<string, crypto.KeyObject>();

function publicKeyObject(raw: Uint8Array): crypto.KeyObject {
  const x = Buffer.from(raw).toString('base64url');
  let key = keyObjects.get(x);
  if (!key) {
    key = crypto.createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
    if (keyObjects.size > 64) keyObjects.clear();
    keyObjects.set(x, key);
  }
  return key;
}

export function verifyEd25519Node(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
  if (signature.length !== 64 || publicKey.length !== 32) return false;
  try {
    return crypto.verify(null, message, publicKeyObject(publicKey), signature);
  } catch {
    return false;
  }
}
