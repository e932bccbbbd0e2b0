/**
 * Enrollment tokens and API keys: 256 bits from the OS CSPRNG (at least 128
 * are required: docs/protocol.md "Authentication"), stored only as SHA-256 hashes, compared in constant time.
 * A fast hash is right here: the secrets are random, not guessable passwords.
 */
import crypto from 'node:crypto';

export const newEnrollmentToken = (): string => crypto.randomBytes(32).toString('base64url');
export const newApiKey = (): string => `tvk_${crypto.randomBytes(32).toString('base64url')}`;
export const newTokenId = (): string => `tok_${crypto.randomBytes(8).toString('hex')}`;
export const newApiKeyId = (): string => `key_${crypto.randomBytes(8).toString('hex')}`;

export function hashSecret(secret: string): string {
  return crypto.createHash('sha256').update(secret, 'utf8').digest('hex');
}

/**
 * Constant-time equality of two hex hashes. Lookups go by hash (an index), and
 * this re-check keeps the final comparison free of timing differences.
 */
export function hashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && crypto.timingSafeEqual(left, right);
}
