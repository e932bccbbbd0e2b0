import { describe, expect, it } from 'vitest';
import { publicKeyFromSecret, signEd25519, verifyEd25519 } from '../../../protocol/ed25519.js';
import { kidFromPublicKey } from '../../../protocol/kid.js';
import { generateSigningKey, signEd25519Node, signingKeyFromSeed } from '../../../issuer/signing.js';
import { verifyEd25519Node } from '../../../main/kiosk/node-ed25519.js';
import rfc8032 from '../../vectors/rfc8032-ed25519.json' with { type: 'json' };

interface Vector {
  name: string;
  secret_key: string;
  public_key: string;
  message: string;
  signature: string;
}
// Imported as a module, not read from disk: a unit test touches no file.
const { vectors } = rfc8032 as { vectors: Vector[] };
const hex = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'hex'));
const toHex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

describe('RFC 8032 section 7.1 vectors', () => {
  it('has all five vectors of section 7.1', () => {
    expect(vectors.map((v) => v.name)).toEqual(['TEST 1', 'TEST 2', 'TEST 3', 'TEST 1024', 'TEST SHA(abc)']);
  });

  for (const v of vectors) {
    it(`${v.name}: the issuer's node:crypto signer produces the RFC signature`, () => {
      const key = signingKeyFromSeed(hex(v.secret_key));
      expect(toHex(key.publicKey)).toBe(v.public_key);
      expect(toHex(signEd25519Node(hex(v.message), key.privateKey))).toBe(v.signature);
    });

    it(`${v.name}: the portable verifier accepts it, and the pure-JS signer agrees`, () => {
      expect(verifyEd25519(hex(v.signature), hex(v.message), hex(v.public_key))).toBe(true);
      expect(toHex(publicKeyFromSecret(hex(v.secret_key)))).toBe(v.public_key);
      expect(toHex(signEd25519(hex(v.message), hex(v.secret_key)))).toBe(v.signature);
    });

    it(`${v.name}: the kiosk's node:crypto verifier accepts it and refuses a flipped bit`, () => {
      expect(verifyEd25519Node(hex(v.signature), hex(v.message), hex(v.public_key))).toBe(true);
      const signature = hex(v.signature);
      signature[40] = signature[40]! ^ 0x80;
      expect(verifyEd25519Node(signature, hex(v.message), hex(v.public_key))).toBe(false);
      expect(verifyEd25519Node(hex(v.signature).subarray(1), hex(v.message), hex(v.public_key))).toBe(false);
    });

    it(`${v.name}: any flipped bit of signature or message is refused`, () => {
      const signature = hex(v.signature);
      signature[10] = signature[10]! ^ 0x01;
      expect(verifyEd25519(signature, hex(v.message), hex(v.public_key))).toBe(false);
      const message = new Uint8Array([...hex(v.message), 0x00]);
      expect(verifyEd25519(hex(v.signature), message, hex(v.public_key))).toBe(false);
    });
  }
});

describe('issuer signer and portable verifier interoperate', () => {
  it('node:crypto signatures verify with @noble/ed25519', () => {
    const key = generateSigningKey();
    for (let i = 0; i < 20; i++) {
      const message = new TextEncoder().encode(`message ${i} ${'x'.repeat(i * 13)}`);
      expect(verifyEd25519(signEd25519Node(message, key.privateKey), message, key.publicKey)).toBe(true);
    }
  });

  it('@noble/ed25519 signatures verify with node:crypto', async () => {
    const crypto = await import('node:crypto');
    const seed = crypto.randomBytes(32);
    const key = signingKeyFromSeed(seed);
    const message = new TextEncoder().encode('signed by the pure-JS side');
    const signature = signEd25519(message, seed);
    expect(crypto.verify(null, message, crypto.createPublicKey(key.privateKey), signature)).toBe(true);
  });

  it('returns false, never throws, on malformed input', () => {
    const key = generateSigningKey();
    const message = new Uint8Array([1, 2, 3]);
    const signature = signEd25519Node(message, key.privateKey);
    expect(verifyEd25519(signature.subarray(0, 63), message, key.publicKey)).toBe(false);
    expect(verifyEd25519(signature, message, key.publicKey.subarray(0, 31))).toBe(false);
    expect(verifyEd25519(new Uint8Array(64).fill(0xff), message, key.publicKey)).toBe(false);
    expect(verifyEd25519(signature, message, new Uint8Array(32).fill(0xff))).toBe(false);
  });
});

describe('kid', () => {
  it('is the first 8 lowercase hex chars of SHA-256 of the raw key', async () => {
    const crypto = await import('node:crypto');
    const raw = hex(vectors[0]!.public_key);
    expect(kidFromPublicKey(raw)).toBe(crypto.createHash('sha256').update(raw).digest('hex').slice(0, 8));
    expect(kidFromPublicKey(raw)).toMatch(/^[0-9a-f]{8}$/);
  });

  it('refuses a key that is not 32 bytes', () => {
    expect(() => kidFromPublicKey(new Uint8Array(31))).toThrow(/32 bytes/);
  });
});
