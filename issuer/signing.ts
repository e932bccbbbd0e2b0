/**
 * Ed25519 signing for the issuer with node:crypto (OpenSSL), several times
 * faster than a pure-JS signer. Verification everywhere else uses
 * protocol/ed25519.ts; test/unit/protocol/ed25519.test.ts proves each accepts the other.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { encodeBase64Url } from '../protocol/base64url.js';
import { kidFromPublicKey } from '../protocol/kid.js';
import { writePrivateFile } from './data-dir.js';

export interface SigningKey {
  kid: string;
  publicKey: Uint8Array;
  privateKey: crypto.KeyObject;
}

export function rawPublicKey(publicKey: crypto.KeyObject): Uint8Array {
  const jwk = publicKey.export({ format: 'jwk' });
  return new Uint8Array(Buffer.from(jwk.x!, 'base64url'));
}

export function generateSigningKey(): SigningKey {
  const { publicKey, privateKey } = crypto.generateKeyPairSync('ed25519');
  const raw = rawPublicKey(publicKey);
  return { kid: kidFromPublicKey(raw), publicKey: raw, privateKey };
}

export function signingKeyFromSeed(seed: Uint8Array): SigningKey {
  // PKCS#8 wrapper for a raw Ed25519 seed (RFC 8410): fixed 16-byte prefix + 32-byte seed.
  const prefix = Buffer.from('302e020100300506032b657004220420', 'hex');
  const privateKey = crypto.createPrivateKey({ key: Buffer.concat([prefix, seed]), format: 'der', type: 'pkcs8' });
  const raw = rawPublicKey(crypto.createPublicKey(privateKey));
  return { kid: kidFromPublicKey(raw), publicKey: raw, privateKey };
}

export function signEd25519Node(message: Uint8Array, privateKey: crypto.KeyObject): Uint8Array {
  return new Uint8Array(crypto.sign(null, message, privateKey));
}

export const publicKeyBase64Url = (key: SigningKey): string => encodeBase64Url(key.publicKey);

/** Where the private key of `kid` lives in a data dir's keys folder. */
export const keyFile = (keysDir: string, kid: string): string => path.join(keysDir, `${kid}.key`);

export function savePrivateKey(keysDir: string, key: SigningKey): void {
  writePrivateFile(keyFile(keysDir, key.kid), key.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString());
}

export function loadSigningKey(keysDir: string, kid: string): SigningKey {
  const file = keyFile(keysDir, kid);
  let pem: string;
  try {
    pem = fs.readFileSync(file, 'utf8');
  } catch {
    throw new Error(`the private key for kid ${kid} is missing from ${keysDir}; restore it from a backup of the data dir`);
  }
  const privateKey = crypto.createPrivateKey(pem);
  const raw = rawPublicKey(crypto.createPublicKey(privateKey));
  if (kidFromPublicKey(raw) !== kid) throw new Error(`the key file for kid ${kid} holds a different key`);
  return { kid, publicKey: raw, privateKey };
}
