/** Enrollment tokens and the scanner API keys they are exchanged for. Secrets are stored only as SHA-256 hashes. */
import { prepareCached, type Db } from './database.js';

export interface EnrollmentTokenRow {
  token_id: string;
  token_hash: string;
  eid: string;
  gate_id: string | null;
  expires_at: string;
  key_expires_at: string;
  created_at: string;
  used_at: string | null;
  revoked_at: string | null;
  failed_attempts: number;
}

export interface ApiKeyRow {
  api_key_id: string;
  key_hash: string;
  token_id: string;
  scanner_id: string;
  scanner_name: string | null;
  scanner_platform: string | null;
  eid: string;
  gate_id: string | null;
  expires_at: string;
  created_at: string;
  revoked_at: string | null;
}

export function insertEnrollmentToken(db: Db, row: Omit<EnrollmentTokenRow, 'used_at' | 'revoked_at' | 'failed_attempts'>): void {
  prepareCached(
    db,
    `INSERT INTO enrollment_tokens (token_id, token_hash, eid, gate_id, expires_at, key_expires_at, created_at)
     VALUES (@token_id, @token_hash, @eid, @gate_id, @expires_at, @key_expires_at, @created_at)`,
  ).run(row);
}

export function findTokenByHash(db: Db, tokenHash: string): EnrollmentTokenRow | undefined {
  return prepareCached(db, 'SELECT * FROM enrollment_tokens WHERE token_hash = ?').get(tokenHash) as EnrollmentTokenRow | undefined;
}

export function findTokenById(db: Db, tokenId: string): EnrollmentTokenRow | undefined {
  return prepareCached(db, 'SELECT * FROM enrollment_tokens WHERE token_id = ?').get(tokenId) as EnrollmentTokenRow | undefined;
}

/** Marks a token used only if it still is unused: the UPDATE's WHERE makes "exactly one exchange" atomic. */
export function claimToken(db: Db, tokenId: string, now: string): boolean {
  return (
    prepareCached(db, 'UPDATE enrollment_tokens SET used_at = ? WHERE token_id = ? AND used_at IS NULL AND revoked_at IS NULL').run(
      now,
      tokenId,
    ).changes === 1
  );
}

export function recordFailedTokenAttempt(db: Db, tokenId: string): void {
  prepareCached(db, 'UPDATE enrollment_tokens SET failed_attempts = failed_attempts + 1 WHERE token_id = ?').run(tokenId);
}

/** Revokes an unused token; returns the token as it is now, or undefined if unknown. */
export function revokeToken(db: Db, tokenId: string, now: string): EnrollmentTokenRow | undefined {
  prepareCached(db, 'UPDATE enrollment_tokens SET revoked_at = COALESCE(revoked_at, ?) WHERE token_id = ? AND used_at IS NULL').run(
    now,
    tokenId,
  );
  return findTokenById(db, tokenId);
}

export function insertApiKey(db: Db, row: Omit<ApiKeyRow, 'revoked_at'>): void {
  prepareCached(
    db,
    `INSERT INTO api_keys (api_key_id, key_hash, token_id, scanner_id, scanner_name, scanner_platform, eid, gate_id, expires_at, created_at)
     VALUES (@api_key_id, @key_hash, @token_id, @scanner_id, @scanner_name, @scanner_platform, @eid, @gate_id, @expires_at, @created_at)`,
  ).run(row);
}

export function findApiKeyByHash(db: Db, keyHash: string): ApiKeyRow | undefined {
  return prepareCached(db, 'SELECT * FROM api_keys WHERE key_hash = ?').get(keyHash) as ApiKeyRow | undefined;
}

export function listApiKeys(db: Db, eid?: string): ApiKeyRow[] {
  return eid === undefined
    ? (prepareCached(db, 'SELECT * FROM api_keys ORDER BY created_at').all() as ApiKeyRow[])
    : (prepareCached(db, 'SELECT * FROM api_keys WHERE eid = ? ORDER BY created_at').all(eid) as ApiKeyRow[]);
}

export function revokeApiKey(db: Db, apiKeyId: string, now: string): boolean {
  return (
    prepareCached(db, 'UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE api_key_id = ?').run(now, apiKeyId).changes === 1
  );
}
